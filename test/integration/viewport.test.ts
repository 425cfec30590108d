// open_session's viewport on the real Grid: the page's innerWidth/innerHeight are what was asked,
// the result says so, every tab of the browser has it (new tabs, pop-ups), and the browser that
// replaces it (any action after end_browser, or after the Grid reaped it) keeps it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "viewport";
let server: TestServer;
const site = serveFixture({
  "/": () => html("<title>Size</title><p style='height:3000px'>tall, so a scrollbar would show</p>"),
  // What the pop-up's own first script measured.
  "/pop": () => html("<title>Pop</title><script>document.title = 'Pop ' + innerWidth</script>"),
});

const call = (method: string, path: string, body?: unknown) => server.call(method, path, body, W);
const size = async () => {
  const res = await call("POST", "/browser/script", { script: "() => [innerWidth, innerHeight]" });
  expect([res.status, res.body.error]).toEqual([200, undefined]);
  return res.body.result;
};

beforeAll(async () => {
  server = await startServer({ dataDir: false });
}, 60_000);

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

describe("open_session viewport", () => {
  test("the page gets the asked size, says so, and keeps it on a reopen", async () => {
    const opened = await call("POST", "/browser", {
      url: site.url("/"),
      viewport: { width: 390, height: 700 },
    });
    expect(opened.status).toBe(200);
    expect(opened.body.viewport).toEqual({ width: 390, height: 700 });
    expect(opened.body.settings.viewport).toEqual({ width: 390, height: 700 });
    expect(await size()).toEqual([390, 700]);
    expect((await call("POST", "/browser/navigate", { url: `${site.url("/")}?again` })).status).toBe(200);
    expect(await size()).toEqual([390, 700]);
    expect((await call("DELETE", "/browser")).body.ended).toBe(true);
    expect((await call("POST", "/browser/navigate", { url: site.url("/") })).status).toBe(200);
    expect(await size()).toEqual([390, 700]);
  }, 240_000);

  test("every tab has it: a new tab, a pop-up, and after a reap, tabs of the browser reopened", async () => {
    const tabs = async () => {
      const got = await call("POST", "/browser/switch", { tab: "list" });
      expect(got.body.error).toBeUndefined();
      return got.body.tabs;
    };
    const inEachTab = async () => {
      const sizes: unknown[] = [];
      for (const t of await tabs()) {
        expect((await call("POST", "/browser/switch", { tab: t.index })).status).toBe(200);
        sizes.push(await size());
      }
      return sizes;
    };
    const opened = await call("POST", "/browser", {
      url: site.url("/"),
      viewport: { width: 800, height: 600 },
    });
    expect(opened.body.viewport).toEqual({ width: 800, height: 600 });
    const popUp = async () => {
      expect((await call("POST", "/browser/switch", { tab: 0 })).status).toBe(200);
      const script = `() => { window.open(${JSON.stringify(site.url("/pop"))}, "_blank", "width=500,height=400"); return 1; }`;
      expect((await call("POST", "/browser/script", { script })).status).toBe(200);
      const newTab = await call("POST", "/browser/switch", { tab: "new", url: site.url("/") });
      expect(newTab.status).toBe(200);
      const list = await tabs();
      expect(list.length).toBe(3);
      expect(list.map((t: { title: string }) => t.title)).toContain("Pop 800");
      expect(await inEachTab()).toEqual([
        [800, 600],
        [800, 600],
        [800, 600],
      ]);
    };
    await popUp();
    // The Grid reaps the browser: the next action reopens it silently, and its tabs are sized too.
    const before = await server.app.services.store.get(W);
    expect((await fetch(`${testGridUrl}/session/${before!.session_id}`, { method: "DELETE" })).status).toBe(
      200,
    );
    expect(await size()).toEqual([800, 600]);
    expect((await server.app.services.store.get(W))!.session_id).not.toBe(before!.session_id);
    await popUp();
  }, 240_000);

  test("a viewport too small is a 400 naming it", async () => {
    const bad = await call("POST", "/browser", { viewport: { width: 50, height: 700 } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("viewport");
  });
});
