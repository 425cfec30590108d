// The compiled binary, run from an empty folder, serves the admin pages and their embedded static
// files (htmx, its extensions, the CSS and the fold script) with nothing beside it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBinary } from "../../scripts/build.ts";
import { testGridUrl } from "../support/env.ts";
import { all, one, parseHtml, text } from "../support/html.ts";

const dir = mkdtempSync(join(tmpdir(), "sf-ui-bin-"));
const run = mkdtempSync(join(tmpdir(), "sf-ui-empty-"));
const binary = join(dir, "selenium-flow");
const TOKEN = "ui-binary-token-0123";
let proc: ReturnType<typeof Bun.spawn>;
let base = "";

beforeAll(async () => {
  await buildBinary({ entry: "src/main.ts", outfile: binary });
  proc = Bun.spawn([binary, "--http-port", "0"], {
    cwd: run,
    env: { PATH: process.env.PATH ?? "", GRID_URL: testGridUrl, AUTH_TOKEN: TOKEN },
    stderr: "pipe",
    stdout: "pipe",
  });
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let output = "";
  while (!base) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the binary stopped before serving:\n${output}`);
    output += decoder.decode(value);
    base = /serving on (http:\/\/[^:]+:\d+)/.exec(output)?.[1] ?? "";
  }
  void (async () => {
    while (!(await reader.read()).done) {}
  })();
}, 120_000);

afterAll(() => {
  proc?.kill();
  rmSync(dir, { recursive: true, force: true });
  rmSync(run, { recursive: true, force: true });
});

test("the binary asks for the token, signs in, and serves every page", async () => {
  const first = await fetch(`${base}/ui/`);
  expect(first.status).toBe(401);
  expect(all(parseHtml(await first.text()), "input[name=token]")).toHaveLength(1);

  const signIn = await fetch(`${base}/ui/sign-in`, {
    method: "POST",
    body: new URLSearchParams({ token: TOKEN, next: "/ui/" }),
    redirect: "manual",
  });
  expect(signIn.status).toBe(303);
  const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
  expect(cookie).toMatch(/^sf_admin=[A-Za-z0-9_-]{43}$/);
  expect(cookie).not.toContain(TOKEN);

  for (const [path, heading] of [
    ["/ui/", "Workspaces"],
    ["/ui/secrets", "Secrets"],
    ["/ui/settings", "Settings"],
    ["/ui/activity", "Activity"],
  ]) {
    const res = await fetch(`${base}${path}`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(text(one(parseHtml(await res.text()), "h1"))).toBe(heading as string);
  }
}, 60_000);

test("the binary serves the embedded htmx, extensions, CSS, script and icon, cached for a year", async () => {
  const page = parseHtml(
    await (await fetch(`${base}/ui/`, { headers: { authorization: `Bearer ${TOKEN}` } })).text(),
  );
  const urls = [
    ...all(page, "script").map((s) => s.attrs.src as string),
    ...all(page, "link").map((l) => l.attrs.href as string),
  ];
  const sources: Record<string, string> = {
    "htmx.js": require.resolve("htmx.org/dist/htmx.min.js"),
    "hx-sse.js": require.resolve("htmx.org/dist/ext/hx-sse.min.js"),
    "hx-upsert.js": require.resolve("htmx.org/dist/ext/hx-upsert.min.js"),
    "ui.js": join(import.meta.dir, "../../static/ui.js"),
    "ui.css": join(import.meta.dir, "../../static/ui.css"),
    "icon.svg": join(import.meta.dir, "../../static/icon.svg"),
  };
  expect(urls.map((u) => /\/ui\/static\/([^?]+)/.exec(u)?.[1]).sort()).toEqual(Object.keys(sources).sort());
  for (const url of urls) {
    const res = await fetch(`${base}${url}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const name = /\/ui\/static\/([^?]+)/.exec(url)?.[1] as string;
    expect(Buffer.from(await res.arrayBuffer())).toEqual(readFileSync(sources[name] as string));
  }
}, 60_000);
