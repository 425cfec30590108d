// Browsers nobody owns, through the manager on a fake Grid that lists each browser with the
// workspace it was opened for: the next call that opens a browser ends its workspace's orphans first
// (and no other workspace's); the sweep ends those no record names, keeps the record's, and leaves
// a workspace a call holds; end_browser says what the Grid answered.
import { beforeEach, describe, expect, test } from "bun:test";
import type { AnyAction } from "../../../src/actions/action.ts";
import { validate } from "../../../src/actions/validate.ts";
import { endBrowser } from "../../../src/browser/session.ts";
import type { RecordStore } from "../../../src/store/index.ts";
import { openStore } from "../../../src/store/index.ts";
import type { WorkspaceManager } from "../../../src/workspaces/manager.ts";
import { goAction as navigate } from "../../support/actions.ts";
import { runCall } from "../../support/calls.ts";
import { FakeGrid } from "../../support/fake-grid.ts";
import { testServices } from "../../support/services.ts";

const APP = "https://app.example.com/";
let store: RecordStore;
let fake: FakeGrid;
let manager: WorkspaceManager;

beforeEach(async () => {
  store = await openStore({ ttl: 86_400 });
  fake = new FakeGrid();
  manager = testServices({ store, grid: fake.grid }).workspaces;
});

function call(action: AnyAction, input: unknown = {}, workspace = "w"): Promise<Record<string, any>> {
  return runCall(manager, workspace, action, validate(action.input, input));
}

describe("the next call that opens a browser", () => {
  test("ends the browsers its workspace's record does not name first, and no other workspace's", async () => {
    await call(navigate, { url: APP });
    await call(navigate, { url: APP }, "other");
    // The record is lost (a flushed Redis, an expired record).
    await store.delete("w");
    fake.log.length = 0;
    await call(navigate, { url: APP });
    expect(fake.log.filter((l) => !l.startsWith("bidi") && !l.startsWith("get"))).toEqual([
      "end b1",
      "open b3",
    ]);
    expect(fake.browsers.get("b2")?.alive).toBe(true);
  });

  test("keeps the browser the record names", async () => {
    await call(navigate, { url: APP });
    await call(navigate, { url: APP });
    expect(fake.log.filter((l) => l.startsWith("open") || l.startsWith("end"))).toEqual(["open b1"]);
  });
});

describe("the sweep", () => {
  test("ends every browser no record names; keeps the records' browsers", async () => {
    await call(navigate, { url: APP });
    await call(navigate, { url: APP }, "other");
    await call(navigate, { url: APP }, "gone");
    await store.delete("gone");
    expect(await manager.orphans.sweep()).toBe(1);
    expect([...fake.browsers.values()].map((b) => [b.id, b.alive])).toEqual([
      ["b1", true],
      ["b2", true],
      ["b3", false],
    ]);
    expect(await manager.orphans.sweep()).toBe(0);
  });

  test("leaves a workspace a call holds (it may be opening that browser) for the next sweep", async () => {
    await call(navigate, { url: APP });
    await store.delete("w");
    const held = await manager.leases.tryTake("w");
    expect(held).not.toBeNull();
    expect(await manager.orphans.sweep()).toBe(0);
    expect(fake.browsers.get("b1")?.alive).toBe(true);
    await held?.release();
    expect(await manager.orphans.sweep()).toBe(1);
    expect(fake.browsers.get("b1")?.alive).toBe(false);
  });
});

describe("end_browser", () => {
  test("with no browser in the record, ends one the record lost (and says ended)", async () => {
    await call(navigate, { url: APP });
    await store.delete("w");
    expect(await call(endBrowser)).toEqual({ ended: true });
    expect(fake.browsers.get("b1")?.alive).toBe(false);
    expect(await call(endBrowser)).toEqual({ ended: false });
  });

  test("ended true when the Grid ended it or it was gone; with why when the Grid refused", async () => {
    await call(navigate, { url: APP });
    expect(await call(endBrowser)).toEqual({ ended: true });
    await call(navigate, { url: APP });
    fake.reap("b2");
    expect(await call(endBrowser)).toEqual({ ended: true });
    await call(navigate, { url: APP });
    fake.end = async () => {
      throw new Error("the Grid at http://grid.example.test did not end the browser (HTTP 500): boom");
    };
    expect(await call(endBrowser)).toEqual({
      ended: false,
      reason: "the Grid at http://grid.example.test did not end the browser (HTTP 500): boom",
    });
    expect((await store.get("w"))?.session_id).toBe("");
  });
});
