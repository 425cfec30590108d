// Documents keep running after a save: an origin with a document alive at the last save (any tab,
// any frame) is read again at the next one, so a write after the save is kept though the page then
// left (a timer, a second tab that closed); an iframe's origin joins the history, so a full save
// reads it once the frame is gone. On the real Grid.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "site-data-alive";
const fixture = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req) => {
    const path = new URL(req.url).pathname;
    const body: Record<string, string> = {
      // A refresh token rotated 2 s after the agent's save.
      "/late": `<script>setTimeout(() => localStorage.setItem('token', 'rotated-Welcome2024!'), 2000)</script>`,
      // A second tab that writes after the save, then closes itself.
      "/tab": `<script>setTimeout(() => localStorage.setItem('tab', 'hunter2-Example!'), 2000);
        setTimeout(() => window.close(), 3000)</script>`,
      "/frame": `<iframe src="${at("frame")}/sets"></iframe>`,
      "/sets": `<script>localStorage.setItem('f', 'in-frame')</script>`,
    };
    return new Response(`<!doctype html><title>page</title>${body[path] ?? ""}<body>ok</body>`, {
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  },
});
function at(host: string): string {
  return `http://${host}.example.test:${fixture.port}`;
}
const [A, B, C, F] = ["a", "b", "c", "frame"].map(at) as [string, string, string, string];

let server: TestServer;
const call = (method: string, path: string, body?: unknown) => server.call(method, path, body, W);
const go = async (url: string) => expect((await call("POST", "/browser/navigate", { url })).status).toBe(200);
const tabs = async (): Promise<number> =>
  (await call("POST", "/browser/switch", { tab: "list" })).body.tabs.length;

async function save(): Promise<string[]> {
  const res = await call("POST", "/browser/save-site-data", {});
  expect(res.status).toBe(200);
  return res.body.saved.sites;
}

async function saved(origin: string): Promise<Record<string, string>> {
  const res = await call("GET", `/site-data/${new URL(origin).hostname}`);
  return res.body.storage?.find((s: any) => s.origin === origin)?.local_storage ?? {};
}

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  fixture.stop(true);
});

describe("a save keeps what documents alive at the last one wrote", () => {
  test("a timer's write after the save, then a navigation away, is in the next save", async () => {
    expect((await call("POST", "/browser", { url: `${A}/late`, restore_site_data: false })).status).toBe(200);
    await save();
    expect(await saved(A)).toEqual({});
    await Bun.sleep(2500);
    await go(`${B}/`);
    expect(await save()).toContain(A);
    expect(await saved(A)).toEqual({ token: "rotated-Welcome2024!" });
    // Where nothing runs, nothing more is read: A has no document now.
    expect(await save()).not.toContain(A);
  }, 180_000);

  test("a second tab's write after the save is kept after the tab closed", async () => {
    const before = await tabs();
    await call("POST", "/browser/script", {
      script: `window.open(${JSON.stringify(`${C}/tab`)}); return 1;`,
    });
    let n = before;
    for (let i = 0; i < 50 && n <= before; i++) [n] = [await tabs(), await Bun.sleep(50)];
    expect(n).toBe(before + 1);
    await Bun.sleep(300);
    await save();
    expect(await saved(C)).toEqual({});
    for (let i = 0; i < 100 && n > before; i++) [n] = [await tabs(), await Bun.sleep(50)];
    expect(n).toBe(before);
    expect(await save()).toContain(C);
    expect(await saved(C)).toEqual({ tab: "hunter2-Example!" });
  }, 180_000);

  test("an iframe's origin joins the history: a full save reads it once the frame is gone", async () => {
    await go(`${A}/frame`);
    await Bun.sleep(500);
    await go(`${B}/`);
    const id = (await server.app.services.store.get(W))?.session_id ?? "";
    server.app.services.workspaces.connections.drop(id);
    expect(await save()).toContain(F);
    expect(await saved(F)).toEqual({ f: "in-frame" });
    // The agent's page stays on top: a reopen goes there, not to the frame.
    expect((await server.app.services.store.get(W))?.history[0]?.origin).toBe(B);
  }, 180_000);
});
