// The workspace lease through the manager, on a fake Grid: a call waits its turn and gives up with
// the 503 that says why; a browser opened under a lease that turned stale is quit, not left
// running; a call whose lease is broken mid-call stops and writes nothing; an admin's End goes
// ahead of a waiting call without waiting itself.
import { beforeEach, describe, expect, test } from "bun:test";
import { validate } from "../../../src/actions/validate.ts";
import { AppError, LeaseLost } from "../../../src/errors.ts";
import type { OpenOptions } from "../../../src/grid/webdriver-caps.ts";
import { openStore, type RecordStore } from "../../../src/store/index.ts";
import type { LeaseSettings, WorkspaceManager } from "../../../src/workspaces/manager.ts";
import { busyMessage } from "../../../src/workspaces/pipeline.ts";
import { goAction as navigate, testAction } from "../../support/actions.ts";
import { runCall } from "../../support/calls.ts";
import { FakeGrid } from "../../support/fake-grid.ts";
import { testServices } from "../../support/services.ts";

const W = "w";
const URL1 = "https://app.example.test/one";
let store: RecordStore;
let fake: FakeGrid;

function managerOn(lease: LeaseSettings = { lease: 15, wait: 60 }): WorkspaceManager {
  return testServices({ store, grid: fake.grid, hooks: {}, lease }).workspaces;
}

beforeEach(async () => {
  store = await openStore({ ttl: 86_400 });
  fake = new FakeGrid();
});

const go = (m: WorkspaceManager, url = URL1) => runCall(m, W, navigate, validate(navigate.input, { url }));

describe("the workspace lease, through the manager", () => {
  test("a call that finds its workspace held waits its turn, then gives up with the 503 saying why", async () => {
    const m = managerOn({ lease: 15, wait: 0.3 });
    // Another server's call holds it, and keeps holding it.
    expect(await store.takeLease(W, "elsewhere", 10_000)).toBeGreaterThan(0);
    const began = performance.now();
    const err = await go(m).catch((e: unknown) => e);
    expect(performance.now() - began).toBeGreaterThanOrEqual(290);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(503);
    expect((err as Error).message).toBe(busyMessage(W, 0.3));
    expect((err as Error).message).toBe(
      "another call holds workspace w and did not end within 0.3 s: retry once it has ended",
    );
    // It opened nothing while it waited.
    expect(fake.log).toEqual([]);
  });

  test("calls from two servers on one store run one after the other, in the order they came", async () => {
    const a = managerOn();
    const b = managerOn();
    const seen: string[] = [];
    const slow = (name: string) =>
      testAction(name, async () => {
        seen.push(`${name} start`);
        await Bun.sleep(40);
        seen.push(`${name} end`);
        return {};
      });
    await go(a);
    await Promise.all([
      runCall(a, W, slow("one"), {}),
      Bun.sleep(5).then(() => runCall(b, W, slow("two"), {})),
      Bun.sleep(10).then(() => runCall(a, W, slow("three"), {})),
    ]);
    expect(seen).toEqual(["one start", "one end", "two start", "two end", "three start", "three end"]);
  });

  test("a browser opened under a lease that turned stale is quit, and the record never names it", async () => {
    const m = managerOn();
    const open = fake.open.bind(fake);
    // While the Grid opens the browser, the call's lease is broken (an admin's End elsewhere).
    fake.open = async (o: OpenOptions) => {
      await store.breakLease(W);
      return open(o);
    };
    const err = await go(m).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseLost);
    expect(fake.log).toContain("open b1");
    expect(fake.log).toContain("end b1");
    expect(fake.browsers.get("b1")?.alive ?? false).toBe(false);
    expect((await store.get(W))?.session_id ?? "").toBe("");
  });

  test("open_session under a lease that turned stale quits the browser it opened", async () => {
    const m = managerOn();
    await go(m);
    const open = fake.open.bind(fake);
    fake.open = async (o: OpenOptions) => {
      await store.breakLease(W);
      return open(o);
    };
    const { openSession } = await import("../../../src/browser/session.ts");
    const err = await runCall(m, W, openSession, validate(openSession.input, { url: URL1 })).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LeaseLost);
    expect(fake.log).toContain("end b2");
    expect([...fake.browsers.values()].filter((b) => b.alive)).toEqual([]);
  });

  test("a call whose lease is broken mid-call stops, and its result is not written", async () => {
    const m = managerOn({ lease: 0.3, wait: 60 });
    await go(m);
    const before = await store.get(W);
    const stale = testAction("outlives_its_lease", async (ctx) => {
      await store.breakLease(W);
      // The renewal, every 100 ms, finds it gone and stops the call.
      await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
      return { url: "https://app.example.test/late", title: "" };
    });
    const err = await runCall(m, W, stale, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseLost);
    expect((await store.get(W))?.history).toEqual(before?.history);
  });

  test("an admin's End goes ahead of the call in flight and the ones waiting, without waiting itself", async () => {
    const m = managerOn();
    await go(m);
    let release: () => void = () => undefined;
    const stuck = testAction("stuck", async (ctx) => {
      await new Promise<void>((resolve) => {
        release = resolve;
        ctx.signal.addEventListener("abort", () => resolve());
      });
      return {};
    });
    const inFlight = runCall(m, W, stuck, {}).catch((e: unknown) => e);
    await Bun.sleep(20);
    const waiting = go(m, "https://app.example.test/two");
    await Bun.sleep(20);
    expect(await m.interrupt(W)).toEqual({ ended: true });
    expect(fake.log).toContain("end b1");
    release();
    await inFlight;
    // The waiting call goes on, on a new browser.
    const out = await waiting;
    expect(out.url).toBe("https://app.example.test/two");
    expect((await store.get(W))?.session_id).toBe("b2");
  });
});
