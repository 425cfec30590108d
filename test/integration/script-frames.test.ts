// execute_script where no secret was ever typed: nothing to check, so nothing refused. Frames that
// never answer a sandbox call (a `javascript:` frame under `script-src 'none'`, as news pages carry
// for ads) and a saved real news page must not read as "holds a typed secret".
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "script-frames";
const PAGES = join(import.meta.dir, "..", "fixtures", "pages");
let server: TestServer;

const site = serveFixture({
  "/csp": () =>
    html(
      `<title>Ad frames</title><h1>News</h1><iframe src="javascript:void(0)"></iframe><iframe srcdoc="<p>ad</p>"></iframe><iframe src="about:blank"></iframe>`,
      {
        "content-security-policy": "script-src 'none'",
      },
    ),
  "/news": () => html(readFileSync(join(PAGES, "nytimes-1.html"), "utf8")),
});
const call = (method: string, path: string, body?: unknown) => server.call(method, path, body, W);

beforeAll(async () => {
  server = await startServer({ dataDir: false });
});
afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

test("a page whose frames never answer the sandbox runs scripts when nothing was typed", async () => {
  const opened = await call("POST", "/browser", { url: site.url("/csp") });
  expect([opened.status, opened.body.error]).toEqual([200, undefined]);
  const run = await call("POST", "/browser/script", {
    script: "return document.title + ' ' + frames.length",
  });
  expect([run.status, run.body.error]).toEqual([200, undefined]);
  expect(run.body.result).toBe("Ad frames 3");
});

test("a saved real news page runs scripts when nothing was typed", async () => {
  expect((await call("POST", "/browser/navigate", { url: site.url("/news") })).status).toBe(200);
  const run = await call("POST", "/browser/script", {
    script: "return document.querySelectorAll('iframe').length >= 0",
  });
  expect([run.status, run.body.error]).toEqual([200, undefined]);
  expect(run.body.result).toBe(true);
});
