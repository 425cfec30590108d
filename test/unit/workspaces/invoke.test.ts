// invoke() on a fake Grid: one call runs activity → validation → the manager (its after-hook
// handed the call's browser) → the timeline entry, whichever surface it came from; a refused call
// never reaches the manager, and is noted and entered as the 400 it is.
import { beforeEach, expect, spyOn, test } from "bun:test";
import { statusOf } from "../../../src/errors.ts";
import type { Services } from "../../../src/services.ts";
import { openStore } from "../../../src/store/index.ts";
import type { CallEnd } from "../../../src/workspaces/after.ts";
import { invoke } from "../../../src/workspaces/invoke.ts";
import { goAction as go } from "../../support/actions.ts";
import { FakeGrid } from "../../support/fake-grid.ts";
import { testServices } from "../../support/services.ts";

const W = "w";
const URL1 = "https://app.example.test/one";
let services: Services;
let fake: FakeGrid;

beforeEach(async () => {
  fake = new FakeGrid();
  services = testServices({ store: await openStore({ ttl: 86_400 }), grid: fake.grid, hooks: {} });
});

test("a call through invoke: noted, run on the browser, its entry written, the after-hook handed that browser", async () => {
  const ends: CallEnd[] = [];
  const after = services.timeline.after.bind(services.timeline);
  services.timeline.after = (end) => {
    ends.push(end);
    return after(end);
  };
  const out = await invoke(services, { surface: "mcp", workspace: W, action: go, args: { url: URL1 } });
  expect(out.url).toBe(URL1);
  expect(services.activity.list()).toMatchObject([{ workspace: W, tool: "go", surface: "mcp", status: 200 }]);
  expect(await services.timeline.all(W)).toMatchObject([
    { n: 1, surface: "mcp", tool: "go", status: 200, url: URL1 },
  ]);
  expect(ends.map((e) => [e.action.name, e.failed, e.browser?.id])).toEqual([["go", false, fake.last().id]]);
});

test("a refused call never reaches the manager: a 400 noted, entered, and thrown", async () => {
  await invoke(services, { surface: "rest", workspace: W, action: go, args: { url: URL1 } });
  const manager = spyOn(services.workspaces, "call");
  const err = await invoke(services, { surface: "rest", workspace: W, action: go, args: { nope: 1 } }).catch(
    (e: unknown) => e,
  );
  expect(statusOf(err)).toBe(400);
  expect(manager).not.toHaveBeenCalled();
  expect(services.activity.list()[0]).toMatchObject({ surface: "rest", status: 400 });
  const entries = await services.timeline.all(W);
  expect(entries[1]).toMatchObject({ surface: "rest", tool: "go", status: 400 });
});

test("a person's input is entered but not noted as an agent's call", async () => {
  await invoke(services, {
    surface: "person",
    workspace: W,
    action: go,
    args: { typed: "x" },
    input: { url: URL1 },
  });
  expect(services.activity.list()).toEqual([]);
  expect(await services.timeline.all(W)).toMatchObject([
    { surface: "person", args: { typed: "x" }, status: 200 },
  ]);
});
