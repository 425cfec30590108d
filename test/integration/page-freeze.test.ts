// A page cannot freeze the browser, on the real Grid. chromedriver chokes on console text with
// unpaired UTF-16 surrogates ("bad inspector message … log.entryAdded"): a few such messages and the
// browser's whole BiDi channel stops answering, for good. The call that finds it so answers within
// seconds saying what happened, the browser is replaced as after a reap (site data restored, the
// last page reopened) by one that follows no console, and every later call works. An ordinary
// page's console output is still logged.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "page-freeze";
let server: TestServer;

const site = serveFixture({
  "/calm": () =>
    html(
      `<title>Calm</title><script>console.log("hello from a calm page"); localStorage.setItem("kept", "Welcome2024!")</script>`,
    ),
  "/freeze": () =>
    html(`<title>Freeze</title><script>for (let i = 0; i < 50; i++) console.log("a\\uD800b" + i)</script>`),
  "/other": () => html(`<title>Other</title><h1>other</h1>`),
  // A title and a text with lone surrogates, which the server's own scripts read.
  "/odd": () =>
    html(
      `<title>x</title><p id=t>x</p><script>document.getElementById('t').textContent = 'a\\uD800b'; document.title = 'T\\uDC00'</script>`,
    ),
});

const call = (method: string, path: string, body?: unknown) => server.call(method, path, body, W);
const timed = async (method: string, path: string, body?: unknown) => {
  const t0 = performance.now();
  const res = await call(method, path, body);
  return { ...res, ms: performance.now() - t0 };
};
const browserId = async () => (await server.app.services.store.get(W))?.session_id ?? "";
const consoleTexts = async () =>
  ((await call("POST", "/browser/logs", { kind: "console" })).body.entries as Array<{ text: string }>).map(
    (e) => e.text,
  );

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

describe("a page that poisons the browser's channel", () => {
  test("an ordinary page's console output is logged", async () => {
    expect((await call("POST", "/browser", { url: site.url("/calm") })).status).toBe(200);
    expect(await consoleTexts()).toContain("hello from a calm page");
  }, 120_000);

  test("the navigate answers within seconds saying what happened; the next call has a fresh browser and every later call works", async () => {
    expect((await call("POST", "/browser/save-site-data", {})).status).toBe(200);
    const before = await browserId();
    const nav = await timed("POST", "/browser/navigate", { url: site.url("/freeze") });
    expect(nav.status).toBe(503);
    expect(nav.body.error).toContain("the browser stopped answering (its BiDi channel died");
    expect(nav.body.error).toContain(
      `so it was ended; the next call opens a fresh one on ${site.url("/calm")}`,
    );
    expect(nav.ms).toBeLessThan(30_000);
    // The dead one was ended by classic WebDriver, not left holding a Grid slot.
    expect(await server.app.services.grid.alive(before)).toBe(false);

    // The next call opens the replacement as after a reap: the last page, the saved site data.
    const read = await timed("POST", "/browser/read", {});
    expect([read.status, read.body.title]).toEqual([200, "Calm"]);
    expect(read.body.site_data?.restored?.length).toBeGreaterThan(0);
    expect(read.ms).toBeLessThan(30_000);
    const now = await browserId();
    expect(now).toBeTruthy();
    expect(now).not.toBe(before);
    const kept = await call("POST", "/browser/script", { script: "return localStorage.getItem('kept')" });
    expect(kept.body.result).toBe("Welcome2024!");
    // A run of calls, the hostile page among them, all answer.
    for (const path of ["/freeze", "/other", "/freeze", "/calm"]) {
      const res = await timed("POST", "/browser/navigate", { url: site.url(path) });
      expect([res.status, res.body.error]).toEqual([200, undefined]);
      expect(res.ms).toBeLessThan(30_000);
    }
    expect(await browserId()).toBe(now);
    // The replacement says in its logs that it follows no console.
    expect((await consoleTexts()).some((t) => t.startsWith("console messages are not followed"))).toBe(true);
    const ended = await timed("DELETE", "/browser");
    expect([ended.status, ended.body]).toEqual([200, { ended: true }]);
    expect(ended.ms).toBeLessThan(10_000);
  }, 180_000);

  test("DELETE /browser sent while the hostile page hangs the navigate answers within 10 s", async () => {
    expect((await call("POST", "/browser", { url: site.url("/calm") })).status).toBe(200);
    const before = await browserId();
    const nav = call("POST", "/browser/navigate", { url: site.url("/freeze") });
    await Bun.sleep(500);
    const ended = await timed("DELETE", "/browser");
    expect(ended.status).toBe(200);
    expect(ended.ms).toBeLessThan(10_000);
    expect((await nav).status).toBe(503);
    expect(await server.app.services.grid.alive(before)).toBe(false);
  }, 120_000);

  test("the admin's End while the hostile page hangs the navigate answers within 10 s", async () => {
    expect((await call("POST", "/browser", { url: site.url("/calm") })).status).toBe(200);
    const before = await browserId();
    const nav = call("POST", "/browser/navigate", { url: site.url("/freeze") });
    await Bun.sleep(500);
    const t0 = performance.now();
    const ended = await server.call("POST", `/admin/workspaces/${W}/end`, undefined, null);
    expect([ended.status, ended.body]).toEqual([200, { ended: true }]);
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect((await nav).status).toBe(503);
    expect(await browserId()).toBe("");
    expect(await server.app.services.grid.alive(before)).toBe(false);
  }, 120_000);

  test("a title and text with lone surrogates are read as they are, a lone surrogate replaced", async () => {
    const open = await timed("POST", "/browser", { url: site.url("/odd") });
    expect([open.status, open.body.title]).toEqual([200, "T\uFFFD"]);
    const read = await call("POST", "/browser/read", {});
    expect([read.status, read.body.title]).toEqual([200, "T\uFFFD"]);
    expect(open.ms).toBeLessThan(30_000);
  }, 120_000);

  test("open_session starts a browser that follows the console again", async () => {
    expect((await call("POST", "/browser", { url: site.url("/calm") })).status).toBe(200);
    expect(await consoleTexts()).toContain("hello from a calm page");
  }, 120_000);
});
