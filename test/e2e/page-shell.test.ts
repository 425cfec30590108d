// The admin pages' shell in a real browser, with its real scripts served slowly: htmx must not
// start before its extensions, or a page whose SSE extension arrives late never opens its live feed
// (seen on a loaded machine: a workspace page that stopped updating).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Builder, type WebDriver } from "selenium-webdriver";
import { ASSETS } from "../../src/views/assets.ts";
import { PageShell } from "../../src/views/layout.tsx";
import { testGridUrl } from "../support/env.ts";

let driver: WebDriver;
let opened = 0;
const shell = PageShell({
  title: "shell",
  signedIn: false,
  children: '<div id="fed"></div><div hx-sse:connect="/events" hidden></div>',
});
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 60,
  async fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/") return new Response(shell, { headers: { "content-type": "text/html" } });
    if (url.pathname === "/events") {
      opened++;
      const body = 'data: <hx-partial hx-target="#fed" hx-swap="innerHTML">fed</hx-partial>\n\n';
      return new Response(
        new ReadableStream({
          start: (c) => c.enqueue(new TextEncoder().encode(body)),
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    }
    const asset = ASSETS.get(url.pathname.replace("/ui/static/", ""));
    if (!asset) return new Response("no", { status: 404 });
    // The SSE extension arrives well after htmx itself.
    if (url.pathname.endsWith("/hx-sse.js")) await Bun.sleep(500);
    return new Response(asset.bytes, { headers: { "content-type": asset.type } });
  },
});

beforeAll(async () => {
  driver = await new Builder()
    .usingServer(testGridUrl)
    .withCapabilities({ browserName: "chrome", "goog:chromeOptions": { args: ["--headless=new"] } })
    .build();
}, 120_000);

afterAll(async () => {
  await driver?.quit();
  server.stop(true);
});

test("a page whose SSE extension arrives late still opens its live feed", async () => {
  await driver.get(`http://127.0.0.1:${server.port}/`);
  const fed = await driver.wait(
    async () => (await driver.executeScript("return document.getElementById('fed').textContent")) === "fed",
    10_000,
    "waited 10 s for the live feed's first message",
  );
  expect(fed).toBe(true);
  expect(opened).toBe(1);
}, 60_000);
