// Writes that land after a save are in the next one, however they come, on the real Grid: a
// pagehide handler's write as the agent leaves, IndexedDB written by a Web Worker after the save,
// and a refresh token a signed-in app rotates a few seconds after the save (in localStorage and an
// HttpOnly cookie), the agent then going elsewhere; a cross-origin iframe's late write once the
// frame is gone. The incremental save reads an origin again when a
// document of it was alive at the last save (site-data-alive.test.ts has the timer, the second
// tab that closed and the iframe).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "site-data-after-save";
const WORKER = `setTimeout(() => {
  const r = indexedDB.open('vault', 1);
  r.onupgradeneeded = () => r.result.createObjectStore('tokens');
  r.onsuccess = () => {
    const tx = r.result.transaction('tokens', 'readwrite');
    tx.objectStore('tokens').put('from-worker-7f3a', 'session');
    tx.oncomplete = () => postMessage('written');
  };
}, 2000);`;
let rotated = 0;
const fixture = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/worker.js")
      return new Response(WORKER, { headers: { "content-type": "text/javascript" } });
    if (path === "/refresh") {
      rotated++;
      return new Response(JSON.stringify({ refresh_token: `rt-rotated-${rotated}` }), {
        headers: {
          "content-type": "application/json",
          "set-cookie": `rt=rt-cookie-${rotated}; Path=/; HttpOnly; Max-Age=86400`,
        },
      });
    }
    const body: Record<string, string> = {
      "/framed": `<iframe src="${at("frame")}/late"></iframe>`,
      "/late": `<script>setTimeout(() => localStorage.setItem('f', 'late-in-frame'), 2000)</script>`,
      "/leaves": `<script>addEventListener('pagehide', () => localStorage.setItem('left', 'at-pagehide'))</script>`,
      "/worker": `<script>const w = new Worker('/worker.js'); w.onmessage = (e) => (document.title = e.data)</script>`,
      // A signed-in app: its refresh token is rotated 3 s after it loads, as a token's timer does.
      "/app": `<script>localStorage.setItem('refresh_token', 'rt-first');
        setTimeout(() => fetch('/refresh').then((r) => r.json()).then((t) => localStorage.setItem('refresh_token', t.refresh_token)), 3000)</script>`,
    };
    return new Response(`<!doctype html><title>page</title>${body[path] ?? ""}<body>ok</body>`, {
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  },
});
const at = (host: string) => `http://${host}.example.test:${fixture.port}`;
const [A, B, APP, F] = ["a", "b", "app", "frame"].map(at) as [string, string, string, string];

let server: TestServer;
const call = (method: string, path: string, body?: unknown) => server.call(method, path, body, W);
const go = async (url: string) => expect((await call("POST", "/browser/navigate", { url })).status).toBe(200);

async function save(): Promise<string[]> {
  const res = await call("POST", "/browser/save-site-data", {});
  expect(res.status).toBe(200);
  return res.body.saved.sites;
}

const snapshot = async () => (await server.app.services.store.get(W))?.site_data ?? {};
const local = async (origin: string) => (await snapshot()).origins?.[origin]?.local ?? {};

beforeAll(async () => {
  server = await startServer();
  expect((await call("POST", "/browser", { url: `${B}/`, restore_site_data: false })).status).toBe(200);
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  fixture.stop(true);
});

describe("a save keeps what was written after the last one", () => {
  test("a pagehide handler's write, as the agent leaves the page, is in the next save", async () => {
    await go(`${A}/leaves`);
    await save();
    expect(await local(A)).toEqual({});
    await go(`${B}/`);
    expect(await save()).toContain(A);
    expect(await local(A)).toEqual({ left: "at-pagehide" });
  }, 120_000);

  test("IndexedDB a Web Worker writes after the save is in the next one, though the page then left", async () => {
    await go(`${A}/worker`);
    await save();
    expect(JSON.stringify((await snapshot()).origins?.[A]?.idb ?? [])).not.toContain("from-worker-7f3a");
    for (let i = 0; i < 100; i++) {
      const title = (await call("POST", "/browser/script", { script: "return document.title" })).body.result;
      if (title === "written") break;
      await Bun.sleep(50);
    }
    await go(`${B}/`);
    expect(await save()).toContain(A);
    expect(JSON.stringify((await snapshot()).origins?.[A]?.idb ?? [])).toContain("from-worker-7f3a");
  }, 120_000);

  test("a cross-origin iframe's write after the save is in the next one, once the frame is gone", async () => {
    await go(`${A}/framed`);
    await Bun.sleep(300);
    await save();
    expect(await local(F)).toEqual({});
    await Bun.sleep(2_500);
    await go(`${B}/`);
    expect(await save()).toContain(F);
    expect(await local(F)).toEqual({ f: "late-in-frame" });
  }, 120_000);

  test("a refresh token the app rotates a few seconds after the save, before the agent leaves, is in the next save", async () => {
    await go(`${APP}/app`);
    await save();
    expect((await local(APP)).refresh_token).toBe("rt-first");
    const before = rotated;
    for (let i = 0; i < 100 && rotated === before; i++) await Bun.sleep(50);
    for (let i = 0; i < 40; i++) {
      const got = (
        await call("POST", "/browser/script", { script: "return localStorage.getItem('refresh_token')" })
      ).body.result;
      if (got !== "rt-first") break;
      await Bun.sleep(50);
    }
    await go(`${B}/`);
    expect(await save()).toContain(APP);
    expect((await local(APP)).refresh_token).toBe(`rt-rotated-${rotated}`);
    const cookie = (await snapshot()).cookies?.find((c) => c.name === "rt");
    expect([cookie?.value, cookie?.http_only]).toEqual([`rt-cookie-${rotated}`, true]);
  }, 120_000);
});
