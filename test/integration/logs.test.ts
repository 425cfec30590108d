// logs on the real Grid: console messages, uncaught errors and network requests, read since a
// cursor, filtered by kind, level, URL and tab, secret values hidden, the ring bounded by logs.keep.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, logLines, startServer, type TestServer } from "../support/server.ts";

const W = "logs";
const SECRET = "log-secret-91c3";
const KEEP = 30;
let server: TestServer;
const bodies: string[] = [];

const site = serveFixture({
  "/talk": () =>
    html(`<title>Talk</title>
<script>console.log("hello", 1); console.warn("careful"); console.error("typed ${SECRET} here");</script>
<img src="/missing.png">
<script>fetch("/data.json").then((r) => r.text());</script>
<script>fetch("http://nowhere.invalid/api").catch(() => {});</script>
<script>setTimeout(() => { throw new Error("late failure"); }, 0);</script>`),
  "/data.json": () =>
    new Response(JSON.stringify({ ok: true, pad: "y".repeat(500) }), {
      headers: { "content-type": "application/json" },
    }),
  "/flood": () =>
    html(
      `<title>Flood</title><script>for (let i = 0; i < ${KEEP + 10}; i++) console.log("line " + i);</script>`,
    ),
  "/quiet": () => html("<title>Quiet</title>"),
});

async function call(path: string, body?: unknown) {
  const res = await server.call("POST", path, body, W);
  bodies.push(JSON.stringify(res.body));
  return res;
}
const logs = async (body: Record<string, unknown> = {}) => {
  const res = await call("/browser/logs", body);
  expect(res.status).toBe(200);
  return res.body as { entries: any[]; next_cursor: string; more?: boolean };
};

beforeAll(async () => {
  server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.secrets.entries = { app: { keys: { password: { value: SECRET } } } };
      c.logs.keep = KEEP;
    },
  });
  expect((await call("/browser", { url: site.url("/quiet") })).status).toBe(200);
}, 180_000);

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
  const everything = [...bodies, ...logLines].join("\n");
  expect(everything).not.toContain(SECRET);
});

describe("logs", () => {
  test("console messages, the uncaught error and each request with its outcome", async () => {
    const start = (await logs()).next_cursor;
    expect((await call("/browser/navigate", { url: site.url("/talk") })).status).toBe(200);
    await Bun.sleep(300);
    const { entries, next_cursor } = await logs({ cursor: start });
    const consoles = entries.filter((e) => e.kind === "console");
    expect(consoles).toContainEqual({
      kind: "console",
      level: "info",
      text: "hello 1",
      source: `${site.url("/talk")}:2`,
    });
    expect(consoles).toContainEqual(expect.objectContaining({ level: "warn", text: "careful" }));
    expect(consoles).toContainEqual(expect.objectContaining({ level: "error", text: "typed [hidden] here" }));
    expect(consoles).toContainEqual(expect.objectContaining({ level: "error", text: "Error: late failure" }));
    const net = entries.filter((e) => e.kind === "network");
    const doc = net.find((e) => e.url === site.url("/talk"));
    expect(doc).toMatchObject({ method: "GET", status: 200, type: expect.any(String) });
    expect(doc.ms).toBeGreaterThanOrEqual(0);
    expect(net.find((e) => e.url === site.url("/missing.png"))).toMatchObject({ status: 404 });
    const data = net.find((e) => e.url === site.url("/data.json"));
    expect(data).toMatchObject({ status: 200 });
    expect(data.size).toBeGreaterThan(500);
    expect(net.find((e) => e.url === "http://nowhere.invalid/api")).toMatchObject({
      error: "net::ERR_NAME_NOT_RESOLVED",
    });
    // Nothing new since: the cursor moves on.
    expect((await logs({ cursor: next_cursor })).entries).toEqual([]);
    // Filters.
    const errors = (await logs({ cursor: start, level: "error" })).entries;
    expect(
      errors.every((e) => (e.kind === "network" ? e.error || e.status >= 400 : e.level === "error")),
    ).toBe(true);
    expect(errors.some((e) => e.kind === "network" && e.status === 404)).toBe(true);
    expect((await logs({ cursor: start, kind: "console" })).entries.every((e) => e.kind === "console")).toBe(
      true,
    );
    const json = (await logs({ cursor: start, url_contains: "data.json" })).entries;
    expect(json.map((e) => e.url)).toEqual([site.url("/data.json")]);
  }, 60_000);

  test("another tab's entries show with tab all only", async () => {
    const start = (await logs()).next_cursor;
    const opened = await call("/browser/script", {
      script: `() => { window.open(${JSON.stringify(site.url("/talk"))}); return 1; }`,
    });
    expect(opened.status).toBe(200);
    await Bun.sleep(1500);
    expect((await logs({ cursor: start, kind: "console" })).entries).toEqual([]);
    const all = (await logs({ cursor: start, kind: "console", tab: "all" })).entries;
    expect(all).toContainEqual(expect.objectContaining({ text: "careful" }));
  }, 60_000);

  test("the ring keeps the newest logs.keep entries; max pages through them", async () => {
    expect((await call("/browser/navigate", { url: site.url("/flood") })).status).toBe(200);
    const newest = (await logs({ kind: "console", max: 500 })).entries.map((e) => e.text);
    expect(newest.at(-1)).toBe(`line ${KEEP + 9}`);
    expect(newest.length).toBeLessThanOrEqual(KEEP);
    expect(newest).not.toContain("line 0");
    const first = await logs({ cursor: "0", kind: "console", max: 3 });
    expect(first.entries).toHaveLength(3);
    expect(first.more).toBe(true);
    const second = await logs({ cursor: first.next_cursor, kind: "console", max: 3 });
    const a = first.entries.map((e) => e.text);
    const b = second.entries.map((e) => e.text);
    expect(b.some((t) => a.includes(t))).toBe(false);
    expect(newest.indexOf(b[0])).toBe(newest.indexOf(a[2]) + 1);
  }, 60_000);

  test("a bad cursor is a 400 naming it", async () => {
    const res = await call("/browser/logs", { cursor: "abc" });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain("cursor");
  });

  test("numbers past their limits are a 400 naming the documented limit, never 1e+23", async () => {
    const huge = await call("/browser/logs", { cursor: "99999999999999999999999" });
    expect(huge.status).toBe(400);
    expect((huge.body as any).error).toContain("cursor");
    expect((huge.body as any).error).toContain("at most 15 digits");
    const max = await call("/browser/logs", { max: 1e20 });
    expect(max.status).toBe(400);
    expect((max.body as any).error).toContain('"max"');
    expect((max.body as any).error).toContain("at most 500");
    // Realistic values still pass, the cursor round-trips as it came.
    const ok = await logs({ max: 500 });
    expect((await logs({ cursor: ok.next_cursor, max: 1 })).next_cursor).toBe(ok.next_cursor);
  });

  test("a cursor from the previous browser does not hide the new browser's entries", async () => {
    expect((await call("/browser/navigate", { url: site.url("/flood") })).status).toBe(200);
    const old = (await logs({ kind: "console" })).next_cursor;
    const ended = await server.call("DELETE", "/browser", undefined, W);
    expect(ended.status).toBe(200);
    expect((await call("/browser", { url: site.url("/talk") })).status).toBe(200);
    const deadline = Date.now() + 10_000;
    let got = await logs({ cursor: old, kind: "console" });
    while (!got.entries.some((e) => e.text === "careful") && Date.now() < deadline) {
      await Bun.sleep(200);
      got = await logs({ cursor: old, kind: "console" });
    }
    const texts = got.entries.map((e) => e.text);
    // From the new browser's first entry: "hello 1" came before "careful".
    expect(texts[0]).toBe("hello 1");
    expect(texts).toContain("careful");
    expect(got.next_cursor).not.toBe(old);
  }, 120_000);
});
