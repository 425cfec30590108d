// The compiled binary, run from an empty folder, drives the real Grid and serves its pages.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBinary } from "../../scripts/build.ts";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { pagesPdf } from "../support/pdf.ts";

const dir = mkdtempSync(join(tmpdir(), "sf-bin-"));
const binary = join(dir, "selenium-flow");
const site = serveFixture({
  "/": () => html("<title>Bin</title><h1>Bin</h1>"),
  "/doc.pdf": () => new Response(pagesPdf(3), { headers: { "content-type": "application/pdf" } }),
});
let proc: ReturnType<typeof Bun.spawn>;
let base = "";
let output = "";
const TOKEN = "binary-token-0123";

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": "bin", "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  await buildBinary({ entry: "src/main.ts", outfile: binary });
  const run = mkdtempSync(join(tmpdir(), "sf-empty-"));
  proc = Bun.spawn([binary, "--http-port", "0"], {
    cwd: run,
    env: {
      PATH: process.env.PATH ?? "",
      GRID_URL: testGridUrl,
      AUTH_TOKEN: TOKEN,
      DATA_DIR: join(run, "data"),
    },
    stderr: "pipe",
    stdout: "pipe",
  });
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  while (!base) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the binary stopped before serving:\n${output}`);
    output += decoder.decode(value);
    const m = /serving on (http:\/\/[^:]+:\d+)/.exec(output);
    if (m) base = m[1] as string;
  }
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      output += decoder.decode(value);
    }
  })();
}, 120_000);

afterAll(async () => {
  proc?.kill();
  site.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("the binary opens a browser, navigates, describes and ends it", async () => {
  const opened = await call("POST", "/browser", { url: site.url("/") });
  expect(opened.status).toBe(200);
  expect(opened.body.title).toBe("Bin");
  const nav = await call("POST", "/browser/navigate", { reload: true });
  expect(nav.body).toMatchObject({ url: site.url("/"), title: "Bin" });
  const current = await call("GET", "/browser");
  expect(current.body).toMatchObject({ live: true, url: site.url("/") });
  // A PDF served inline downloads, and the binary reads its text (pdf.js inside the binary).
  expect((await call("POST", "/browser/navigate", { url: site.url("/doc.pdf") })).status).toBe(200);
  let listed: { name: string }[] = [];
  for (let i = 0; i < 60 && !listed.some((f) => f.name === "doc.pdf"); i++) {
    await Bun.sleep(200);
    listed = (await call("GET", "/files/downloads")).body.files;
  }
  const text = await call("GET", "/files/downloads/doc.pdf/text/1");
  expect(text.status).toBe(200);
  expect(text.body).toMatchObject({ pages: 3, part: 1 });
  expect(text.body.text).toContain("Line 30 on page 3");
  const ended = await call("DELETE", "/browser");
  expect(ended.body).toEqual({ ended: true });
}, 120_000);

test("the binary serves the admin page and the embedded guide", async () => {
  const ui = await fetch(`${base}/ui/`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(ui.status).toBe(200);
  expect(await ui.text()).toContain("Workspaces");
  const guide = await fetch(`${base}/skill/SKILL.md`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(guide.status).toBe(200);
  expect(await guide.text()).toContain("First five minutes");
});

test("a bad setting stops the binary with exit 2 and the key named", async () => {
  const bad = Bun.spawnSync([binary, "--recording-wait", "3"], { env: { PATH: process.env.PATH ?? "" } });
  expect(bad.exitCode).toBe(2);
  expect(bad.stderr.toString()).toMatch(/^selenium-flow: .*recording\.wait/);
});
