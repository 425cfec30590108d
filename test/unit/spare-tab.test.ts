// The spare tab over a fake BiDi socket: the order of its calls, the path-scoped intercept, the
// marked page, the service-worker and wrong-origin refusals, teardown that always runs, the budget.
import { describe, expect, test } from "bun:test";
import {
  OUT_OF_TIME,
  onSpare,
  ServiceWorkerAnswered,
  SPARE_MARKER,
  SPARE_PAGE,
  SPARE_PATH,
  SW_REASON,
} from "../../src/grid/spare-tab.ts";
import { FakeBidi } from "../support/fake-bidi.ts";
import { spareLoop, withSpareTab } from "../support/spare-tab.ts";

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
    const value = await withSpareTab(bidi.socket, (run) => run(APP, "localStorage.getItem('k')"));
    expect(value).toBe("v");
    expect(bidi.log).toEqual([
      "create tab background",
      `intercept beforeRequestSent [spare-1] ${SPARE_PATH}`,
      "on network.beforeRequestSent spare-1",
      "subscribe network.beforeRequestSent [spare-1]",
      `navigate spare-1 ${APP}${SPARE_PATH} interactive`,
      "respond request-3",
      "evaluate spare-1 await",
      "unintercept",
      "close spare-1",
      "unsubscribe",
      "off network.beforeRequestSent spare-1",
    ]);
    expectTornDown(bidi);
  });

  test("the evaluated expression runs the caller's only on the marked page", () => {
    const expr = onSpare("1 + 1", APP);
    expect(expr).toContain(`meta[name="${SPARE_MARKER}"]`);
    expect(expr).toContain("(1 + 1)");
    expect(expr).toContain(`location.origin === "${APP}"`);
    expect(SPARE_PAGE).toContain(SPARE_MARKER);
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
    const err = await outcome(withSpareTab(bidi.socket, (run) => run(APP, "1")));
    expect(err).toBeInstanceOf(ServiceWorkerAnswered);
    expectTornDown(bidi);
  });

  test("a service worker's page is refused before anything runs there, and the tab still closes", async () => {
    const bidi = new FakeBidi({ workers: [APP] });
    const err = await outcome(withSpareTab(bidi.socket, (run) => run(APP, "localStorage.setItem('x', '1')")));
    expect(err).toBeInstanceOf(ServiceWorkerAnswered);
    expect((err as Error).message).toBe(APP);
    expect(bidi.localOf(APP).length).toBe(0);
    expectTornDown(bidi);
  });

  test("a tab that did not move is never read or written as the new origin", async () => {
    const bidi = new FakeBidi({ stuck: [SSO] });
    const err = await outcome(
      withSpareTab(bidi.socket, async (run) => {
        await run(APP, "1");
        return run(SSO, "localStorage.setItem('sso', 'x')");
      }),
    );
    expect((err as Error).message).toBe(`the spare tab is on ${APP}, not ${SSO}`);
    // The write meant for SSO never reached the page the tab was still on.
    expect(bidi.localOf(APP).items()).toEqual({});
  });

  test("a script that throws raises its text, and the tab still closes", async () => {
    const bidi = new FakeBidi();
    const err = await outcome(
      withSpareTab(bidi.socket, (run) => run(APP, "(() => { throw new Error('boom') })()")),
    );
    expect((err as Error).message).toContain("boom");
    expectTornDown(bidi);
  });

  test("an existing tab is intercepted and left open", async () => {
    const bidi = new FakeBidi();
    await withSpareTab(bidi.socket, (run) => run(APP, "1"), { context: "main" });
    expect(bidi.log.some((l) => l.startsWith("create"))).toBe(false);
    expect(bidi.log.some((l) => l.startsWith("close"))).toBe(false);
    expect(bidi.log[0]).toBe(`intercept beforeRequestSent [main] ${SPARE_PATH}`);
    expect(bidi.tabs.has("main")).toBe(true);
  });

  test("a navigation that raises still tears down, and teardown never raises", async () => {
    const bidi = new FakeBidi({
      fail: (m) =>
        m === "browsingContext.navigate" || m === "network.removeIntercept" || m === "browsingContext.close"
          ? new Error(`${m} failed`)
          : undefined,
    });
    const err = await outcome(withSpareTab(bidi.socket, (run) => run(APP, "1")));
    expect((err as Error).message).toBe("browsingContext.navigate failed");
    expect(bidi.log.slice(-4)).toEqual([
      "unintercept",
      "close spare-1",
      "unsubscribe",
      "off network.beforeRequestSent spare-1",
    ]);
    expect(bidi.handlers).toBe(0);
  });

  test("a tab that cannot be created raises that, with nothing to tear down", async () => {
    const bidi = new FakeBidi({
      fail: (m) => (m === "browsingContext.create" ? new Error("socket is already closed") : undefined),
    });
    const err = await outcome(withSpareTab(bidi.socket, (run) => run(APP, "1")));
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
      { origin: APP, expression: "localStorage.getItem('a')" },
      { origin: SSO, expression: "1" },
      { origin: "https://old.example.test", expression: "localStorage.getItem('o')" },
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
      { origin: APP, expression: "1" },
      { origin: SSO, expression: "1" },
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
        expression: "1",
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
