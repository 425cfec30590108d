// A page that stops answering is named, and the next call recovers: a pop-up whose alert() holds
// the tab that opened it (they share one event loop), and a click handler that never yields.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PAGE_BUSY } from "../../src/grid/page-stuck.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "page-hang";
let server: TestServer;

const site = serveFixture({
  "/opener": () =>
    html(`<title>Opener</title><button id=pop onclick="window.open('/popup')">open</button><p>here</p>`),
  // Once per pop-up: a pop-up that kept its opener is reloaded the first time it is used.
  "/popup": () =>
    html(
      `<title>Popup</title><script>if (!sessionStorage.alerted) { sessionStorage.alerted = 1; setTimeout(() => alert("Pay 4242 now"), 50); }</script>`,
    ),
  "/busy": () =>
    html(`<title>Busy</title><button id=spin onclick="setTimeout(() => { for (;;) {} }, 0)">spin</button>`),
  "/calm": () => html(`<title>Calm</title><h1>calm</h1>`),
});

const call = (method: string, path: string, body?: unknown) => server.call(method, path, body, W);
const timed = async (method: string, path: string, body?: unknown) => {
  const t0 = performance.now();
  const res = await call(method, path, body);
  return { ...res, ms: performance.now() - t0 };
};
const HELD =
  /^the page in tab (\d) shows a dialog \(alert: "Pay 4242 now"\) and this tab waits on it: answer it with dialog, or close that tab/;

/**
 * The click that starts the busy loop, or the call after it: the loop starts on a timer, so the
 * click may answer first (then the next call is the one to find the page busy).
 */
async function spin() {
  const click = await timed("POST", "/browser/interact/click", { selector: { css: "#spin" } });
  if (click.status !== 200) return click;
  expect(click.body.error).toBeUndefined();
  return timed("POST", "/browser/read", {});
}

async function popUp(): Promise<void> {
  const click = await call("POST", "/browser/interact/click", { selector: { css: "#pop" } });
  expect([click.status, click.body.error]).toEqual([200, undefined]);
  await Bun.sleep(300);
}

beforeAll(async () => {
  server = await startServer({ dataDir: false });
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

describe("a page that stops answering", () => {
  test("a pop-up's alert is named by the next read; dialog, or closing its tab, recovers", async () => {
    expect((await call("POST", "/browser", { url: site.url("/opener") })).status).toBe(200);
    await popUp();
    const read = await timed("POST", "/browser/read", {});
    expect([read.status, read.body.error]).toEqual([400, expect.stringMatching(HELD)]);
    expect(read.body.error).toContain("tab 1 ");
    expect(read.ms).toBeLessThan(5_000);
    // dialog answers it from the tab the agent is in; the tab that waited answers again.
    const accepted = await call("POST", "/browser/dialog", { action: "accept" });
    expect(accepted.body).toMatchObject({ message: "Pay 4242 now", type: "alert", title: "Opener" });
    const after = await call("POST", "/browser/read", {});
    expect([after.status, after.body.title]).toEqual([200, "Opener"]);

    // The other way out: close the pop-up's tab.
    await popUp();
    const again = await call("POST", "/browser/read", {});
    expect([again.status, again.body.error]).toEqual([400, expect.stringMatching(HELD)]);
    expect(again.body.error).toContain("tab 2 ");
    expect((await call("POST", "/browser/switch", { tab: 2 })).status).toBe(200);
    expect((await call("POST", "/browser/switch", { tab: "close" })).status).toBe(200);
    const back = await call("POST", "/browser/switch", { tab: 0 });
    expect([back.status, back.body]).toEqual([200, expect.objectContaining({ title: "Opener" })]);
    const calm = await call("POST", "/browser/read", {});
    expect([calm.status, calm.body.title]).toEqual([200, "Opener"]);
  }, 120_000);

  test("open_session while a pop-up's alert holds the tab gets a working browser, and the old one is ended", async () => {
    expect((await call("POST", "/browser", { url: site.url("/opener") })).status).toBe(200);
    const before = (await server.app.services.store.get(W))?.session_id;
    await popUp();
    const open = await timed("POST", "/browser", { url: site.url("/calm") });
    expect([open.status, open.body.title]).toEqual([200, "Calm"]);
    const read = await call("POST", "/browser/read", {});
    expect([read.status, read.body.title]).toEqual([200, "Calm"]);
    expect(await server.app.services.grid.alive(before!)).toBe(false);
  }, 180_000);

  test("a busy loop after a click is named; open_session gets a working browser", async () => {
    expect((await call("POST", "/browser", { url: site.url("/busy") })).status).toBe(200);
    const click = await spin();
    expect([click.status, click.body.error]).toEqual([503, PAGE_BUSY]);
    // Said once the server's own small reads went unanswered, not after the whole script timeout (30 s).
    expect(click.ms).toBeLessThan(20_000);
    const open = await call("POST", "/browser", { url: site.url("/calm") });
    expect([open.status, open.body.title]).toEqual([200, "Calm"]);
    const nav = await call("POST", "/browser/navigate", { url: site.url("/opener") });
    expect([nav.status, nav.body.title]).toEqual([200, "Opener"]);
  }, 180_000);

  test("without open_session, the next call finds the browser still stuck and replaces it silently", async () => {
    expect((await call("POST", "/browser", { url: site.url("/busy") })).status).toBe(200);
    const before = (await server.app.services.store.get(W))?.session_id;
    const click = await spin();
    expect([click.status, click.body.error]).toEqual([503, PAGE_BUSY]);
    const nav = await timed("POST", "/browser/navigate", { url: site.url("/calm") });
    expect([nav.status, nav.body.title]).toEqual([200, "Calm"]);
    const now = (await server.app.services.store.get(W))?.session_id;
    expect(now).toBeTruthy();
    expect(now).not.toBe(before);
    // The stuck one was ended, not left holding a Grid slot.
    expect(await server.app.services.grid.alive(before!)).toBe(false);
  }, 180_000);
});
