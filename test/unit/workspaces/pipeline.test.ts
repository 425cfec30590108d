// The call pipeline on a fake Grid: one call runs validation → its turn → the handler on the
// browser → its answer → its record (the activity note, the timeline's entry, handed the browser the
// call leaves), still in its turn, whichever surface it came from; a timeline read waits for the
// records on their way; a refused call never takes a turn, and is noted and entered as the 400 it is
// before its answer.
import { beforeEach, expect, mock, spyOn, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallEnd } from "../../../src/actions/call.ts";
import { badInput, notFound, statusOf } from "../../../src/errors.ts";
import { runFlowAction } from "../../../src/flows/actions.ts";
import { PagesElsewhere } from "../../../src/grid/elsewhere.ts";
import type { Services } from "../../../src/services.ts";
import { openStore } from "../../../src/store/index.ts";
import { goAction as go, testAction } from "../../support/actions.ts";
import { FakeGrid, goneError } from "../../support/fake-grid.ts";
import { testServices } from "../../support/services.ts";

const W = "w";
const URL1 = "https://app.example.test/one";
let services: Services;
let fake: FakeGrid;

beforeEach(async () => {
  fake = new FakeGrid();
  services = testServices({ store: await openStore({ ttl: 86_400 }), grid: fake.grid, hooks: {} });
});

const invoke = (call: Parameters<Services["workspaces"]["calls"]["invoke"]>[0]) =>
  services.workspaces.calls.invoke(call);

test("a call through the pipeline: noted, run on the browser, its entry written, its record handed that browser", async () => {
  const ends: CallEnd[] = [];
  const ended = services.timeline.ended.bind(services.timeline);
  services.timeline.ended = (end) => {
    ends.push(end);
    return ended(end);
  };
  const out = await invoke({ surface: "mcp", workspace: W, action: go, args: { url: URL1 } });
  expect(out.url).toBe(URL1);
  // The timeline's read, right after the answer, waits for the entry on its way.
  expect(await services.timeline.all(W)).toMatchObject([
    { n: 1, surface: "mcp", tool: "go", status: 200, url: URL1 },
  ]);
  expect(services.activity.list()).toMatchObject([{ workspace: W, tool: "go", surface: "mcp", status: 200 }]);
  expect(ends.map((e) => [e.action.name, e.ended.ok, e.browser?.id])).toEqual([["go", true, fake.last().id]]);
});

test("a refused call never takes a turn: a 400 noted, entered, and thrown", async () => {
  await invoke({ surface: "rest", workspace: W, action: go, args: { url: URL1 } });
  const manager = spyOn(services.workspaces.leases, "line");
  const err = await invoke({ surface: "rest", workspace: W, action: go, args: { nope: 1 } }).catch(
    (e: unknown) => e,
  );
  expect(statusOf(err)).toBe(400);
  expect(manager).not.toHaveBeenCalled();
  expect(services.activity.list()[0]).toMatchObject({ surface: "rest", status: 400 });
  const entries = await services.timeline.all(W);
  expect(entries[1]).toMatchObject({ surface: "rest", tool: "go", status: 400 });
});

test("a subscriber hears a page call's change as its write is in, then the call ended; a refused call only ended", async () => {
  const heard: string[] = [];
  services.workspaces.calls.subscribe({
    changed: (w) => heard.push(`changed ${w}`),
    ended: (end) => {
      heard.push(`ended ${end.action.name} ${end.ended.ok}`);
    },
  });
  await invoke({ surface: "rest", workspace: W, action: go, args: { url: URL1 } });
  await invoke({ surface: "rest", workspace: W, action: go, args: { nope: 1 } }).catch(() => null);
  expect(heard).toEqual([`changed ${W}`, "ended go true", "ended go false"]);
});

test("the answer goes before the record, which ends before the lease goes; a timeline read waits for it", async () => {
  let release = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  const ended = services.timeline.ended.bind(services.timeline);
  services.timeline.ended = async (end) => {
    await held;
    return ended(end);
  };
  const out = await invoke({ surface: "rest", workspace: W, action: go, args: { url: URL1 } });
  expect(out.url).toBe(URL1);
  // Answered while its record waits; still in its turn.
  expect(await services.workspaces.leases.tryTake(W)).toBeNull();
  let read = false;
  const reading = services.timeline.all(W).then((all) => {
    read = true;
    return all;
  });
  await Bun.sleep(20);
  expect(read).toBe(false);
  release();
  expect((await reading).map((e) => e.tool)).toEqual(["go"]);
  await services.workspaces.calls.recorded(W);
  const lease = await services.workspaces.leases.tryTake(W);
  expect(lease).not.toBeNull();
  await lease?.release();
});

test("an agent's call reads its record once, in its lease's take, and acts on the browser it names", async () => {
  await invoke({ surface: "mcp", workspace: W, action: go, args: { url: URL1 } });
  await services.workspaces.calls.recorded(W);
  services.timeline.ended = async () => {};
  const store = services.store;
  const reads = spyOn(store, "get");
  const takes = spyOn(store, "takeLeaseReading");
  const out = await invoke({ surface: "mcp", workspace: W, action: go, args: { url: `${URL1}?2` } });
  expect(out.url).toBe(`${URL1}?2`);
  expect([reads.mock.calls.length, takes.mock.calls.length]).toEqual([0, 1]);
  expect(fake.browsers.size).toBe(1);
});

test("a person's input is entered but not noted as an agent's call", async () => {
  await invoke({
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

test("a call that needs its workspace there and finds no record: its refusal, the lease given back, nothing recorded or opened", async () => {
  const heard: string[] = [];
  services.workspaces.calls.subscribe({ ended: (end) => void heard.push(end.workspace) });
  const missing = () => notFound("no workspace gone");
  const call = {
    surface: "person",
    workspace: "gone",
    action: go,
    args: {},
    input: { url: URL1 },
    missing,
  } as const;
  const err = await invoke(call).catch((e: unknown) => e);
  expect([statusOf(err), (err as Error).message]).toEqual([404, "no workspace gone"]);
  await services.workspaces.calls.recorded();
  expect(heard).toEqual([]);
  expect(fake.browsers.size).toBe(0);
  expect(await services.store.get("gone")).toBeNull();
  const lease = await services.workspaces.leases.tryTake("gone");
  expect(lease).not.toBeNull();
  await lease?.release();
  // Its record there, the refusal is never asked; none (a folder says it is there): the call goes on.
  let asked = 0;
  const counted = () => {
    asked++;
    return null;
  };
  expect((await invoke({ ...call, workspace: W, missing: counted })).url).toBe(URL1);
  expect((await invoke({ ...call, workspace: W, missing: counted })).url).toBe(URL1);
  expect(asked).toBe(1);
});

test("a call is recorded in its turn: the next call on the workspace finds its entry and its note", async () => {
  // A record that takes its time: the next call still waits for it.
  const ended = services.timeline.ended.bind(services.timeline);
  services.timeline.ended = async (end) => {
    await new Promise((r) => setTimeout(r, 100));
    return ended(end);
  };
  const seen: Array<[number, number]> = [];
  const peek = testAction("peek", async () => {
    seen.push([(await services.timeline.all(W)).length, services.activity.list().length]);
    return {};
  });
  await Promise.all([
    invoke({ surface: "rest", workspace: W, action: go, args: { url: URL1 } }),
    invoke({ surface: "rest", workspace: W, action: peek, args: {} }),
  ]);
  expect(seen).toEqual([[1, 1]]);
});

/** A page step that fails the way a missing element does. */
const boom = testAction("test_boom", async () => {
  throw badInput("no element matches #gone");
});

test("a flow's steps are recorded through the same record stage, on the run's browser, one lease for the run", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sf-pipeline-flow-"));
  try {
    services = testServices({
      store: await openStore({ ttl: 86_400 }),
      grid: fake.grid,
      hooks: {},
      actions: [go, boom],
      configure: (config) => {
        config.data.dir = dir;
      },
    });
    const ends: CallEnd[] = [];
    const ended = services.timeline.ended.bind(services.timeline);
    services.timeline.ended = (end) => {
      ends.push(end);
      return ended(end);
    };
    const leases = spyOn(services.workspaces.leases, "line");
    services.flows.store.save(
      W,
      "two",
      `onError: continue\nsteps:\n  - tool: go\n    args: {url: "${URL1}"}\n  - tool: test_boom\n`,
    );
    await invoke({
      surface: "rest",
      workspace: W,
      action: runFlowAction,
      args: { name: "two" },
    });
    await services.workspaces.calls.recorded(W);
    expect(leases).toHaveBeenCalledTimes(1);
    expect(ends.map((e) => [e.surface, e.action.name, e.ended.ok, e.step?.flow, e.browser?.id])).toEqual([
      ["flow", "go", true, "two", fake.last().id],
      ["flow", "test_boom", false, "two", fake.last().id],
      ["rest", "run_flow", true, undefined, fake.last().id],
    ]);
    const entries = await services.timeline.all(W);
    expect(entries.map((e) => [e.surface, e.tool, e.status, e.url])).toEqual([
      ["flow", "go", 200, URL1],
      ["flow", "test_boom", 400, URL1],
      ["rest", "run_flow", 200, URL1],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a step whose browser was reaped is run again on a browser reopened once, on the page the run reached", async () => {
  const reap = testAction("test_reap", async (ctx) => {
    fake.reap(ctx.browser.id);
    return {};
  });
  const dir = mkdtempSync(join(tmpdir(), "sf-pipeline-reap-"));
  const seen: string[] = [];
  const here = testAction("test_here", async (ctx) => {
    seen.push(ctx.browser.id);
    if (!fake.browsers.get(ctx.browser.id)?.alive) throw goneError();
    return {};
  });
  services = testServices({
    store: await openStore({ ttl: 86_400 }),
    grid: fake.grid,
    hooks: {},
    actions: [go, reap, here],
    configure: (config) => {
      config.data.dir = dir;
    },
  });
  services.flows.store.save(
    W,
    "reaped",
    `steps:\n  - tool: go\n    args: {url: "${URL1}"}\n  - tool: test_reap\n  - tool: test_here\n`,
  );
  const out = await invoke({
    surface: "rest",
    workspace: W,
    action: runFlowAction,
    args: { name: "reaped" },
  }).finally(() => rmSync(dir, { recursive: true, force: true }));
  expect(out.status).toBe("ok");
  const ids = [...fake.browsers.keys()];
  expect(ids).toHaveLength(2);
  expect(seen).toEqual(ids);
  const second = ids[1];
  // The reopened browser went where the run had got to: written before the reopen.
  expect(fake.log).toContain(`get ${second} ${URL1}`);
  expect((await services.store.get(W))?.session_id).toBe(second);
});

/** An action that leaves `ms` of work to run after its answer, and says when it is done. */
function leaving(name: string, ms: number, log: string[], fail = false): ReturnType<typeof testAction> {
  return testAction(name, async (ctx) => {
    ctx.effects.later(
      new Promise<void>((resolve) =>
        setTimeout(() => {
          log.push(`${name} later done`);
          resolve();
        }, ms),
      ),
    );
    if (fail) throw badInput("no element matches #gone");
    return {};
  });
}

test("a call's later work runs after its answer, in its turn: the next call on the workspace waits for it", async () => {
  const log: string[] = [];
  const slow = leaving("slow", 150, log);
  const peek = testAction("peek", async () => {
    log.push("next call");
    return {};
  });
  const first = invoke({ surface: "rest", workspace: W, action: slow, args: {} }).then(() =>
    log.push("answered"),
  );
  const second = invoke({ surface: "rest", workspace: W, action: peek, args: {} });
  await Promise.all([first, second]);
  expect(log).toEqual(["answered", "slow later done", "next call"]);
});

test("a failed call's later work is held in its turn too", async () => {
  const log: string[] = [];
  const failing = leaving("failing", 100, log, true);
  const peek = testAction("peek", async () => {
    log.push("next call");
    return {};
  });
  const first = invoke({ surface: "rest", workspace: W, action: failing, args: {} }).catch(() =>
    log.push("answered"),
  );
  await Promise.all([first, invoke({ surface: "rest", workspace: W, action: peek, args: {} })]);
  expect(log).toEqual(["answered", "failing later done", "next call"]);
});

test("a flow step's later work is done before the next step", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sf-pipeline-later-"));
  try {
    const log: string[] = [];
    const slow = leaving("test_slow", 100, log);
    const next = testAction("test_next", async () => {
      log.push("next step");
      return {};
    });
    services = testServices({
      store: await openStore({ ttl: 86_400 }),
      grid: fake.grid,
      hooks: {},
      actions: [go, slow, next],
      configure: (config) => {
        config.data.dir = dir;
      },
    });
    services.flows.store.save(W, "two", "steps:\n  - tool: test_slow\n  - tool: test_next\n");
    await invoke({ surface: "rest", workspace: W, action: runFlowAction, args: { name: "two" } });
    expect(log).toEqual(["test_slow later done", "next step"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A first page, then a pop-up's page loaded in another tab for the next call's write to record. */
async function poppedUp() {
  await invoke({ surface: "mcp", workspace: W, action: go, args: { url: URL1 } });
  await services.workspaces.calls.recorded(W);
  const forget = mock(() => {});
  const looks = spyOn(PagesElsewhere.prototype, "pending").mockReturnValue({
    urls: ["https://pop.example.test/cb?code=1"],
    recorded: forget,
  });
  return { forget, looks };
}

test("pages loaded in other tabs join the history in the call's write, and are forgotten as its turn ends", async () => {
  const { forget, looks } = await poppedUp();
  try {
    await invoke({ surface: "mcp", workspace: W, action: go, args: { url: `${URL1}?2` } });
    await services.workspaces.calls.recorded(W);
    const record = await services.store.get(W);
    expect(record?.history.map((h) => h.url)).toEqual([`${URL1}?2`, "https://pop.example.test/cb"]);
    expect(looks).toHaveBeenCalledTimes(1);
    expect(forget).toHaveBeenCalledTimes(1);
  } finally {
    looks.mockRestore();
  }
});

test("pages loaded in other tabs are not forgotten when the call's settle write fails (they were never recorded)", async () => {
  const { forget, looks } = await poppedUp();
  const update = services.store.update.bind(services.store);
  const writes = spyOn(services.store, "update").mockImplementation((key, fn, opts) =>
    opts?.fence ? Promise.reject(new Error("the store did not answer")) : update(key, fn, opts),
  );
  try {
    const err = await invoke({ surface: "mcp", workspace: W, action: go, args: { url: `${URL1}?2` } }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    await services.workspaces.calls.recorded(W);
    expect(looks).toHaveBeenCalledTimes(1);
    expect((await services.store.get(W))?.history.map((h) => h.url)).not.toContain(
      "https://pop.example.test/cb",
    );
    // Never written: kept for the next call's write.
    expect(forget).toHaveBeenCalledTimes(0);
  } finally {
    looks.mockRestore();
    writes.mockRestore();
  }
});
