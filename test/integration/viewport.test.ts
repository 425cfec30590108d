// open_session's viewport on the real Grid: the page's innerWidth/innerHeight are what was asked,
// the result says so, and the browser that replaces it (any action after end_browser) keeps them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "viewport";
let server: TestServer;
const site = serveFixture({
  "/": () => html("<title>Size</title><p style='height:3000px'>tall, so a scrollbar would show</p>"),
});

const call = (method: string, path: string, body?: unknown) => server.call(method, path, body, W);
const size = async () => {
  const res = await call("POST", "/browser/script", { script: "() => [innerWidth, innerHeight]" });
  expect(res.status).toBe(200);
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

  test("a viewport too small is a 400 naming it", async () => {
    const bad = await call("POST", "/browser", { viewport: { width: 50, height: 700 } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("viewport");
  });
});
