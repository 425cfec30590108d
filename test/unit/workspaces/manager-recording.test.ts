// The manager's recording rules on a fake Grid: `record` is never inherited by an explicit open,
// is replayed on a reap while recording is on, and is dropped from a reopen once it is off.
import { expect, test } from "bun:test";
import { validate } from "../../../src/actions/validate.ts";
import { openSession } from "../../../src/browser/session.ts";
import { openStore } from "../../../src/store/index.ts";
import type { ManagerHooks } from "../../../src/workspaces/lifecycle.ts";
import { goAction as go } from "../../support/actions.ts";
import { runCall } from "../../support/calls.ts";
import { FakeGrid } from "../../support/fake-grid.ts";
import { testServices } from "../../support/services.ts";

async function setUp(hooks: ManagerHooks) {
  const fake = new FakeGrid();
  const store = await openStore({ dataDir: null, storeUrl: null, ttl: 86_400 });
  const manager = testServices({ store, grid: fake.grid, hooks }).workspaces;
  const open = (input: unknown) => runCall(manager, "w", openSession, validate(openSession.input, input));
  return { fake, store, manager, open };
}

test("a reap replays record while recording is on; an explicit open does not inherit it", async () => {
  const expected: string[] = [];
  const hooks: ManagerHooks = {
    recordings: {
      expect: (_w, id) => {
        expected.push(id);
        return null;
      },
      ended: () => {},
    },
  };
  const { fake, manager, open } = await setUp(hooks);
  await open({ url: "https://app.example.test/", record: true });
  const first = fake.last();
  expect(first.options.record).toBe(true);
  fake.reap(first.id);
  await runCall(manager, "w", go, { url: "https://app.example.test/x" });
  const second = fake.last();
  expect(second.id).not.toBe(first.id);
  expect(second.options.record).toBe(true);
  expect(expected).toEqual([first.id, second.id]);
  await open({ url: "https://app.example.test/" });
  expect(fake.last().options.record).toBe(false);
});

test("a reap after recording was turned off opens a browser that is not filmed", async () => {
  const on: ManagerHooks = { recordings: { expect: () => null, ended: () => {} } };
  const { fake, store, open } = await setUp(on);
  await open({ url: "https://app.example.test/", record: true });
  const first = fake.last();
  // The same record, served by a server whose recording is off.
  const off = testServices({ store, grid: fake.grid, hooks: {} }).workspaces;
  fake.reap(first.id);
  await runCall(off, "w", go, { url: "https://app.example.test/x" });
  expect(fake.last().id).not.toBe(first.id);
  expect(fake.last().options.record).toBe(false);
});
