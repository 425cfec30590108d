// The spare tab over a fake BiDi socket: the order of its calls, the path-scoped intercept, the
// marked page, the service-worker and wrong-origin refusals, teardown that always runs, the budget;
// and the pool: tabs side by side, results in the order asked whatever the order they finished.
import { describe, expect, test } from "bun:test";
import {
  OUT_OF_TIME,
  onSpare,
  ServiceWorkerAnswered,
  SPARE_MARKER,
  SPARE_PAGE,
  SPARE_PATH,
  type SpareJob,
  type SpareOutcome,
  SparePool,
  SW_REASON,
} from "../../../src/grid/spare-tab.ts";
import { callOn, FakeBidi, FakeStorage } from "../../support/fake-bidi.ts";
import { spareLoop, withSpareTab } from "../../support/spare-tab.ts";

const APP = "https://app.example.test";
const SSO = "https://sso.example.test";

/** Nothing of the spare tab is left, and its handler outlived its intercept. */
function expectTornDown(bidi: FakeBidi): void {
  expect(bidi.tabs.has("spare-1")).toBe(false);
  expect(bidi.handlers).toBe(0);
  expect(bidi.openIntercepts).toBe(0);
  expect(bidi.handlerGoneFirst).toEqual([]);
}

async function outcome<T>(p: Promise<T>): Promise<unknown> {
  return p.then(
    () => null,
    (e: unknown) => e,
  );
}

describe("the spare tab", () => {
  test("stands on an origin, runs there, and tears down: the intercept before its handler, its tab closing meanwhile", async () => {
    const bidi = new FakeBidi();
    bidi.localOf(APP).setItem("k", "v");
    const value = await withSpareTab(bidi.socket, (run) => run(APP, "() => localStorage.getItem('k')"));
    expect(value).toBe("v");
    expect(bidi.log).toEqual([
      "create tab background",
      `intercept beforeRequestSent [spare-1] ${SPARE_PATH}`,
      "on network.beforeRequestSent spare-1",
      "subscribe network.beforeRequestSent [spare-1]",
      "preload [spare-1] selenium-flow",
      `navigate spare-1 ${APP}${SPARE_PATH} interactive`,
      "respond request-4",
      "preloaded spare-1 selenium-flow",
      "call spare-1",
      "unintercept",
      "close spare-1",
      "unsubscribe",
      "unpreload preload-3-spare-1",
      "off network.beforeRequestSent spare-1",
    ]);
    expect(bidi.preloads.size).toBe(0);
    expectTornDown(bidi);
  });

  test("one call per visit runs the caller's function only on the marked page of the origin asked", async () => {
    const fn = onSpare("(x) => x + 1");
    expect(fn).toContain(JSON.stringify(SPARE_MARKER));
    expect(fn).toContain("((x) => x + 1)(arg)");
    expect(fn).toContain("at.origin !== origin");
    // The origin and the values are arguments: the text is the same for every visit.
    expect(fn).not.toContain(APP);
    expect(SPARE_PAGE).toBe(`<meta name=${SPARE_MARKER}>`);
    const page = { local: new FakeStorage(), session: new FakeStorage() };
    const on = (origin: string, marked: boolean) => callOn(fn, [APP, "a"], { ...page, origin, marked });
    expect(JSON.parse((await on(APP, true)) as string)).toEqual({ spare: true, origin: APP, value: "a1" });
    expect(JSON.parse((await on(APP, false)) as string)).toEqual({ spare: false, origin: APP });
    expect(JSON.parse((await on(SSO, true)) as string)).toEqual({ spare: true, origin: SSO });
  });

  test("every blocked request is answered with the marked page; others are left alone", async () => {
    const bidi = new FakeBidi();
    let handler: ((e: unknown) => unknown) | null = null;
    const realOn = bidi.on.bind(bidi);
    bidi.on = (event, context, fn) => {
      handler = fn;
      return realOn(event, context, fn);
    };
    await withSpareTab(bidi.socket, async () => {
      const h = handler as unknown as (e: unknown) => unknown;
      h({ isBlocked: true, request: { request: "r1" }, intercepts: ["intercept-1"] });
      h({ isBlocked: false, request: { request: "r2" } });
      h("not an object");
      h(null);
      h({ isBlocked: true, request: { request: "r3" }, intercepts: ["someone-else"] });
      await Bun.sleep(0);
    });
    expect(bidi.responses).toHaveLength(1);
    expect(bidi.responses[0]).toEqual({
      request: "r1",
      statusCode: 200,
      reasonPhrase: "OK",
      headers: [{ name: "content-type", value: { type: "string", value: "text/html" } }],
      body: { type: "string", value: SPARE_PAGE },
    });
  });

  test("a refused answer never raises on the event path; the page then lacks the marker", async () => {
    const bidi = new FakeBidi({
      fail: (m) => (m === "network.provideResponse" ? new Error("no such request") : undefined),
    });
    const err = await outcome(withSpareTab(bidi.socket, (run) => run(APP, "() => 1")));
    expect(err).toBeInstanceOf(ServiceWorkerAnswered);
    expectTornDown(bidi);
  });

  test("a service worker's page is refused before anything runs there, and the tab still closes", async () => {
    const bidi = new FakeBidi({ workers: [APP] });
    const err = await outcome(
      withSpareTab(bidi.socket, (run) => run(APP, "() => localStorage.setItem('x', '1')")),
    );
    expect(err).toBeInstanceOf(ServiceWorkerAnswered);
    expect((err as Error).message).toBe(APP);
    expect(bidi.localOf(APP).length).toBe(0);
    expectTornDown(bidi);
  });

  test("a tab that did not move is never read or written as the new origin", async () => {
    const bidi = new FakeBidi({ stuck: [SSO] });
    const err = await outcome(
      withSpareTab(bidi.socket, async (run) => {
        await run(APP, "() => 1");
        return run(SSO, "() => localStorage.setItem('sso', 'x')");
      }),
    );
    expect((err as Error).message).toBe(`the spare tab is on ${APP}, not ${SSO}`);
    // The write meant for SSO never reached the page the tab was still on.
    expect(bidi.localOf(APP).items()).toEqual({});
  });

  test("a script that throws raises its text, and the tab still closes", async () => {
    const bidi = new FakeBidi();
    const err = await outcome(
      withSpareTab(bidi.socket, (run) => run(APP, "() => { throw new Error('boom') }")),
    );
    expect((err as Error).message).toContain("boom");
    expectTornDown(bidi);
  });

  test("a navigation that raises still tears down, and teardown never raises", async () => {
    const bidi = new FakeBidi({
      fail: (m) =>
        m === "browsingContext.navigate" || m === "network.removeIntercept" || m === "browsingContext.close"
          ? new Error(`${m} failed`)
          : undefined,
    });
    const err = await outcome(withSpareTab(bidi.socket, (run) => run(APP, "() => 1")));
    expect((err as Error).message).toBe("browsingContext.navigate failed");
    expect(bidi.log.slice(-5)).toEqual([
      "unintercept",
      "close spare-1",
      "unsubscribe",
      "unpreload preload-3-spare-1",
      "off network.beforeRequestSent spare-1",
    ]);
    expect(bidi.handlers).toBe(0);
  });

  test("a tab that cannot be created raises that, with nothing to tear down", async () => {
    const bidi = new FakeBidi({
      fail: (m) => (m === "browsingContext.create" ? new Error("socket is already closed") : undefined),
    });
    const err = await outcome(withSpareTab(bidi.socket, (run) => run(APP, "() => 1")));
    expect((err as Error).message).toBe("socket is already closed");
    expect(bidi.log).toEqual(["create tab background"]);
  });
});

describe("the spare-tab loop", () => {
  test("one origin failing does not stop the rest; a worker's origin says why", async () => {
    const bidi = new FakeBidi({ workers: [SSO] });
    bidi.localOf(APP).setItem("a", "1");
    bidi.localOf("https://old.example.test").setItem("o", "1");
    const out = await spareLoop(bidi.socket, [
      { origin: APP, fn: "() => localStorage.getItem('a')" },
      { origin: SSO, fn: "() => 1" },
      { origin: "https://old.example.test", fn: "() => localStorage.getItem('o')" },
    ]);
    expect(out).toEqual([
      { origin: APP, ok: true, value: "1" },
      { origin: SSO, ok: false, reason: SW_REASON },
      { origin: "https://old.example.test", ok: true, value: "1" },
    ]);
    expect(bidi.log.filter((l) => l.startsWith("create"))).toHaveLength(1);
  });

  test("a tab that cannot open fails every origin with its reason", async () => {
    const bidi = new FakeBidi({
      fail: (m) => (m === "network.addIntercept" ? new Error("socket is already closed") : undefined),
    });
    const out = await spareLoop(bidi.socket, [
      { origin: APP, fn: "() => 1" },
      { origin: SSO, fn: "() => 1" },
    ]);
    expect(out).toEqual([
      { origin: APP, ok: false, reason: "socket is already closed" },
      { origin: SSO, ok: false, reason: "socket is already closed" },
    ]);
    expectTornDown(bidi);
  });

  test("the loop stops at its budget; every origin not reached says so", async () => {
    const bidi = new FakeBidi({ navigateMs: 40 });
    const started = performance.now();
    const out = await spareLoop(
      bidi.socket,
      ["https://a.example.test", "https://b.example.test", "https://c.example.test"].map((origin) => ({
        origin,
        fn: "() => 1",
      })),
      { budgetMs: 60 },
    );
    expect(performance.now() - started).toBeLessThan(200);
    expect(out[0]).toEqual({ origin: "https://a.example.test", ok: true, value: 1 });
    expect(out.slice(1)).toEqual([
      { origin: "https://b.example.test", ok: false, reason: OUT_OF_TIME },
      { origin: "https://c.example.test", ok: false, reason: OUT_OF_TIME },
    ]);
    expect(bidi.log.filter((l) => l.startsWith("navigate"))).toHaveLength(2);
    expectTornDown(bidi);
    expect(OUT_OF_TIME).toBe("not reached: the spare tab ran out of time");
  });
});

describe("the spare-tab pool", () => {
  const origins = Array.from({ length: 12 }, (_, i) => `https://s${i}.example.test`);
  const reads = origins.map((origin) => ({ origin, fn: "() => localStorage.getItem('k')" }));
  function world(opts: ConstructorParameters<typeof FakeBidi>[0] = {}) {
    const bidi = new FakeBidi(opts);
    for (const [i, o] of origins.entries()) bidi.localOf(o).setItem("k", `v${i}`);
    return bidi;
  }
  const sequential: SpareOutcome[] = origins.map((origin, i) => ({ origin, ok: true, value: `v${i}` }));
  /** Every tab the pool made is gone, and each lost its intercept before its handler. */
  function allTornDown(bidi: FakeBidi): void {
    expect([...bidi.tabs.keys()]).toEqual(["main"]);
    expect(bidi.handlers).toBe(0);
    expect(bidi.openIntercepts).toBe(0);
    expect(bidi.handlerGoneFirst).toEqual([]);
  }

  test("12 origins in 3 tabs side by side (a tab per 4 visits): the same outcomes, in the order asked, as one tab in turn", async () => {
    // The later origins answer faster, so they finish first.
    const slow = (url: string) => 5 + (12 - Number(/s(\d+)\./.exec(url)?.[1] ?? 0)) * 3;
    const one = world({ navigateMs: slow });
    const inTurn = await spareLoop(one.socket, reads, { tabs: 1 });
    const four = world({ navigateMs: slow });
    const finished: string[] = [];
    const realSend = four.send.bind(four);
    four.send = async (method, params) => {
      const out = await realSend(method, params);
      if (method === "script.callFunction") finished.push(String(params.arguments?.[0]?.value));
      return out;
    };
    const sideBySide = await spareLoop(four.socket, reads, { tabs: 4 });
    expect(inTurn).toEqual(sequential);
    expect(sideBySide).toEqual(inTurn);
    expect(finished).not.toEqual(origins);
    expect(four.log.filter((l) => l.startsWith("create"))).toHaveLength(3);
    expect(four.mostNavigating).toBe(3);
    expect(one.mostNavigating).toBe(1);
    allTornDown(four);
  });

  test("a tab for every 4 visits, never more than its size", async () => {
    const pool = new SparePool(world().socket, 4);
    expect([0, 1, 4, 5, 8, 9, 16, 17, 100].map((n) => pool.tabsFor(n))).toEqual([0, 1, 1, 2, 2, 3, 4, 4, 4]);
    expect(new SparePool(world().socket, 1).tabsFor(100)).toBe(1);
    const creates = async (jobs: number, tabs: number) => {
      const bidi = world();
      const many = Array.from({ length: jobs }, (_, i) => reads[i % reads.length] as SpareJob);
      await spareLoop(bidi.socket, many, { tabs });
      allTornDown(bidi);
      return bidi.log.filter((l) => l.startsWith("create")).length;
    };
    expect(await creates(2, 4)).toBe(1);
    expect(await creates(12, 6)).toBe(3);
    expect(await creates(40, 6)).toBe(6);
    expect(await spareLoop(world().socket, [], { tabs: 4 })).toEqual([]);
  });

  test("a browser with more than 2 cores gets a tab a visit, up to a core less one and its size; 2 cores change nothing", async () => {
    const counts = (size: number, cores: number) => {
      const pool = new SparePool(world().socket, size);
      pool.useCores(cores, 0);
      return [0, 1, 4, 5, 9, 100].map((n) => pool.tabsFor(n));
    };
    expect(counts(4, 2)).toEqual([0, 1, 1, 2, 3, 4]);
    expect(counts(4, 0)).toEqual([0, 1, 1, 2, 3, 4]);
    expect(counts(4, 8)).toEqual([0, 1, 4, 4, 4, 4]);
    expect(counts(8, 4)).toEqual([0, 1, 3, 3, 3, 3]);
  });

  test("cores learnt while a run is on: the tabs opened then join it, every origin once, in the order asked", async () => {
    const bidi = world({ navigateMs: () => 10 });
    const pool = new SparePool(bidi.socket, 6);
    let out: SpareOutcome[];
    try {
      const running = pool.run(reads);
      await Bun.sleep(15);
      pool.useCores(8, reads.length);
      out = await running;
    } finally {
      await pool.close();
    }
    expect(out).toEqual(sequential);
    expect(bidi.log.filter((l) => l.startsWith("create"))).toHaveLength(6);
    // Every tab that opened visited: the late ones took a share.
    const visitedIn = new Set(bidi.log.filter((l) => l.startsWith("navigate")).map((l) => l.split(" ")[1]));
    expect(visitedIn.size).toBe(6);
    allTornDown(bidi);
  });

  test("a tab whose site never answers runs out of time alone; the others finish every other origin", async () => {
    const stuck = origins[1] as string;
    const bidi = world({ hang: [stuck], navigateMs: 5 });
    const started = performance.now();
    const out = await spareLoop(bidi.socket, reads, { tabs: 4, budgetMs: 400 });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(out).toEqual(
      sequential.map((o) => (o.origin === stuck ? { origin: stuck, ok: false, reason: OUT_OF_TIME } : o)),
    );
    allTornDown(bidi);
  });

  test("a tab that cannot open leaves its share to the others", async () => {
    let creates = 0;
    const bidi = world({
      fail: (m) =>
        m === "browsingContext.create" && ++creates === 2 ? new Error("no more tabs") : undefined,
    });
    const out = await spareLoop(bidi.socket, reads, { tabs: 3 });
    expect(out).toEqual(sequential);
    allTornDown(bidi);
  });

  test("when no tab opens, every origin fails with the first tab's reason", async () => {
    const bidi = world({
      fail: (m) => (m === "browsingContext.create" ? new Error("socket is already closed") : undefined),
    });
    const out = await spareLoop(bidi.socket, reads.slice(0, 5), { tabs: 3 });
    expect(out).toEqual(
      origins.slice(0, 5).map((origin) => ({ origin, ok: false, reason: "socket is already closed" })),
    );
  });

  test("the budget stops every tab at once; each origin not finished says so, and every tab closes", async () => {
    const bidi = world({ navigateMs: 50 });
    const out = await spareLoop(bidi.socket, reads, { tabs: 4, budgetMs: 80 });
    // Each of the 3 tabs finished its first visit (50 ms) and was cut off in its second.
    expect(out.slice(0, 3)).toEqual(sequential.slice(0, 3));
    expect(out.slice(3)).toEqual(
      origins.slice(3).map((origin) => ({ origin, ok: false, reason: OUT_OF_TIME })),
    );
    expect(bidi.log.filter((l) => l.startsWith("navigate"))).toHaveLength(6);
    allTornDown(bidi);
  });

  test("a tab still opening when the work is done does not hold the run, and is closed after", async () => {
    let creates = 0;
    const bidi = world();
    const realSend = bidi.send.bind(bidi);
    bidi.send = async (method, params) => {
      if (method === "browsingContext.create" && ++creates === 2) await Bun.sleep(300);
      return realSend(method, params);
    };
    const pool = new SparePool(bidi.socket, 2);
    const started = performance.now();
    const out = await pool.run(reads.slice(0, 5));
    expect(performance.now() - started).toBeLessThan(200);
    expect(out).toEqual(sequential.slice(0, 5));
    await pool.close();
    allTornDown(bidi);
  });
});
