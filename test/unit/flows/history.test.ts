// A flow run's history on a fake Grid: every page the run reached goes into the record in order, as
// the run goes (a server killed mid-run leaves it at the last page reached), then the run's own
// write; a run that went nowhere still makes that one update, so the TTL slides, and the workspace
// stays on the page it started on.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AnyAction } from "../../../src/actions/action.ts";
import { validate } from "../../../src/actions/validate.ts";
import { runFlowAction } from "../../../src/flows/actions.ts";
import type { Flows } from "../../../src/flows/service.ts";
import { SqliteStore } from "../../../src/store/sqlite.ts";
import type { RecordStore } from "../../../src/store/types.ts";
import type { WorkspaceManager } from "../../../src/workspaces/manager.ts";
import { goAction as go, testAction } from "../../support/actions.ts";
import { runCall } from "../../support/calls.ts";
import { FakeGrid } from "../../support/fake-grid.ts";
import { testServices } from "../../support/services.ts";
import { expiresIn } from "../../support/store-ttl.ts";

const T0 = 1_790_800_000;
const TTL = 60;
const W = "w";
const START = "https://start.example.com/";
const LOGIN = "https://app.example.com/login";
const AUTH = "https://sso.example.com/auth";
const HOME = "https://app.example.com/home";

/** A page step that lands on no new page and returns no url (as assert and extract do). */
const check = testAction("test_check", async () => ({ ok: true }));

let clock = T0;
let inner: SqliteStore;
let updates = 0;
/** The history's top after each store update. */
let tops: string[] = [];
let fake: FakeGrid;
let manager: WorkspaceManager;
let flows: Flows;
let dir: string;

beforeEach(() => {
  clock = T0;
  updates = 0;
  tops = [];
  inner = new SqliteStore({ ttl: TTL, now: () => clock });
  // Every store update counted, with where it left the history's top.
  const store = Object.create(inner) as RecordStore;
  store.update = async (key, fn) => {
    updates++;
    const out = await inner.update(key, fn);
    tops.push(out?.history[0]?.url ?? "");
    return out;
  };
  dir = mkdtempSync(join(tmpdir(), "sf-flow-history-"));
  fake = new FakeGrid();
  const services = testServices({
    store,
    grid: fake.grid,
    now: () => clock,
    configure: (config) => {
      config.data.dir = dir;
    },
    actions: [go, check],
  });
  manager = services.workspaces;
  flows = services.flows;
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function call(action: AnyAction, input: unknown = {}): Promise<Record<string, any>> {
  return runCall(manager, W, action, validate(action.input, input));
}

const step = (tool: string, url?: string) =>
  url ? `  - tool: ${tool}\n    args: {url: "${url}"}\n` : `  - tool: ${tool}\n`;

async function runFlow(name: string, steps: string): Promise<Record<string, any>> {
  flows.store.save(W, name, `steps:\n${steps}`);
  return call(runFlowAction, { name });
}

describe("a flow run's history", () => {
  test("records each step's page in order, each as its step ends, then the run's own write", async () => {
    await call(go, { url: START });
    updates = 0;
    tops = [];
    const report = await runFlow(
      "tour",
      step("go", LOGIN) + step("go", AUTH) + step("test_check") + step("go", HOME),
    );
    expect(report.status).toBe("ok");
    expect(report.steps.map((s: any) => [s.tool, s.ok, s.url])).toEqual([
      ["go", true, LOGIN],
      ["go", true, AUTH],
      ["test_check", true, undefined],
      ["go", true, HOME],
    ]);
    expect(report.url).toBe(HOME);
    // One write per step that reached a page (the check reached none), then the run's.
    expect(updates).toBe(4);
    expect(tops).toEqual([LOGIN, AUTH, HOME, HOME]);
    const record = await inner.get(W);
    expect(record?.history.map((v) => v.url)).toEqual([HOME, AUTH, START]);
  });

  test("a run that went nowhere still makes its one update: the TTL slides and the page stays", async () => {
    await call(go, { url: START });
    expect(await expiresIn(inner, W, { now: clock })).toBe(TTL);
    updates = 0;
    clock = T0 + 50;
    const report = await runFlow("stay", step("test_check") + step("test_check"));
    expect(report.status).toBe("ok");
    expect(report.steps.map((s: any) => [s.tool, s.ok, s.url])).toEqual([
      ["test_check", true, undefined],
      ["test_check", true, undefined],
    ]);
    expect(report.url).toBe(START);
    expect(updates).toBe(1);
    expect(await expiresIn(inner, W, { now: clock })).toBe(TTL);
    // Past the first write's TTL, the record is still there, on the page it started on.
    clock = T0 + 100;
    const record = await inner.get(W);
    expect(record).not.toBeNull();
    expect(record?.history.map((v) => v.url)).toEqual([START]);
    expect(record?.history[0]?.at).toBe(T0 + 50);
    expect((await manager.describe(W)).url).toBe(START);
    expect(fake.log.filter((l) => l.startsWith("get "))).toEqual([`get b1 ${START}`]);
  });
});
