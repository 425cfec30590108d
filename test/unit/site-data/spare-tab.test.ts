// The spare tab over a fake BiDi socket: the order of its calls, the path-scoped intercept, the
// marked page, the service-worker and wrong-origin refusals, teardown that always runs; a borrowed
// tab, which moves by its own page and goes back to about:blank.
import { describe, expect, test } from "bun:test";
import { SPARE_PATH } from "../../../src/grid/net-rules.ts";
import { onSpare, SPARE_MARKER, SPARE_PAGE, spareUrl } from "../../../src/site-data/spare-page.ts";
import { BACK_MS, borrowSpareTab, ServiceWorkerAnswered } from "../../../src/site-data/spare-tab.ts";
import { callOn, FakeBidi, FakeStorage } from "../../support/fake-bidi.ts";
import { expectTornDown, withSpareTab } from "../../support/spare-tab.ts";

const APP = "https://app.example.test";
const SSO = "https://sso.example.test";

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
      "on network.beforeRequestSent null",
      "subscribe network.beforeRequestSent,browsingContext.domContentLoaded,browsingContext.navigationFailed,browsingContext.navigationCommitted,browsingContext.load,browsingContext.contextCreated [spare-1]",
      "preload [spare-1] selenium-flow",
      `navigate spare-1 ${APP}${SPARE_PATH} interactive`,
      "respond request-4",
      "preloaded spare-1 selenium-flow",
      `visit spare-1 ${APP}`,
      "unintercept",
      "close spare-1",
      "unsubscribe",
      "unpreload preload-3-spare-1",
      "off network.beforeRequestSent null",
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

  test("every blocked request of its intercept is answered with the marked page (and the frames its url asks for); others are left alone", async () => {
    const bidi = new FakeBidi();
    let handler: ((e: unknown) => unknown) | null = null;
    const realOn = bidi.on.bind(bidi);
    bidi.on = (event, context, fn) => {
      handler = fn;
      return realOn(event, context, fn);
    };
    await withSpareTab(bidi.socket, async () => {
      const h = handler as unknown as (e: unknown) => unknown;
      h({ isBlocked: true, request: { request: "r1", url: APP + SPARE_PATH }, intercepts: ["intercept-1"] });
      h({ isBlocked: false, request: { request: "r2", url: APP + SPARE_PATH } });
      h("not an object");
      h(null);
      h({ isBlocked: true, request: { request: "r3", url: APP + SPARE_PATH }, intercepts: ["someone-else"] });
      // Another tab's blocked request (the handler hears every context): not ours without our intercept.
      h({ isBlocked: true, request: { request: "r4", url: APP + SPARE_PATH } });
      const framed = spareUrl(APP, [SSO, "javascript:alert(1)", 'https://x"onload="alert(1)']);
      h({ isBlocked: true, request: { request: "r5", url: framed }, intercepts: ["intercept-1"] });
      await Bun.sleep(0);
    });
    expect(bidi.responses.map((r) => r.request)).toEqual(["r1", "r5"]);
    // Only origins the URL parser writes as they are become frames.
    expect((bidi.responses[1]?.body as { value?: string } | undefined)?.value).toBe(
      `${SPARE_PAGE}<iframe src="${SSO}${SPARE_PATH}"></iframe>`,
    );
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
      "off network.beforeRequestSent null",
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

  test("a borrowed tab moves only by its own page (nothing of ours in its history), and is back on about:blank before its subscription goes; the tab stays", async () => {
    const bidi = new FakeBidi();
    bidi.localOf(APP).setItem("k", "a");
    bidi.localOf(SSO).setItem("k", "s");
    const tab = await borrowSpareTab(bidi.socket, "main");
    const read = "() => localStorage.getItem('k')";
    expect(await tab.run(APP, read, "", { next: () => spareUrl(SSO) })).toBe("a");
    expect(await tab.run(SSO, read)).toBe("s");
    await tab.close();
    expect(bidi.log.filter((l) => /^(navigate|replace|create|close) /.test(l))).toEqual([
      `replace main ${APP}${SPARE_PATH}`,
      `replace main ${SSO}${SPARE_PATH}`,
      "replace main about:blank",
    ]);
    expect(bidi.log.indexOf("unsubscribe")).toBeGreaterThan(bidi.log.indexOf("replace main about:blank"));
    expect(bidi.tabs.get("main")?.url).toBe("about:blank");
    expect(bidi.handlers).toBe(0);
    expect(bidi.openIntercepts).toBe(0);
    expect(bidi.preloads.size).toBe(0);
    expect(BACK_MS).toBe(5_000);
  });

  test("a borrowed tab is back once about:blank committed: a browser that announces no parse of it keeps nobody waiting", async () => {
    const bidi = new FakeBidi({ quietBlank: true });
    const tab = await borrowSpareTab(bidi.socket, "main");
    expect(await tab.run(APP, "() => 1")).toBe(1);
    const started = performance.now();
    await tab.close();
    expect(performance.now() - started).toBeLessThan(BACK_MS / 5);
    expect(bidi.tabs.get("main")?.url).toBe("about:blank");
    expect(bidi.log.indexOf("unsubscribe")).toBeGreaterThan(bidi.log.indexOf("replace main about:blank"));
    expect(bidi.handlers).toBe(0);
  });

  test("a borrowed tab whose page will not move raises that, and still tears down", async () => {
    const bidi = new FakeBidi({
      fail: (m, p) =>
        m === "browsingContext.navigate" && String(p.url).startsWith(APP) ? new Error("x") : undefined,
    });
    const tab = await borrowSpareTab(bidi.socket, "main");
    const err = await outcome(tab.run(APP, "() => 1"));
    expect((err as Error).message).toBe("the navigation failed");
    await tab.close();
    expect(bidi.tabs.get("main")?.url).toBe("about:blank");
    expect(bidi.handlers).toBe(0);
    expect(bidi.openIntercepts).toBe(0);
  });
});
