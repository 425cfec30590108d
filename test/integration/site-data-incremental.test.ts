// A save costs what changed, on the real Grid: after a full save, a save reads again only the page,
// the origins with a document in any tab now (a pop-up ticking in another tab shows its newest value
// at every save) and the ones a document loaded since; every other origin is carried untouched. A
// save right after a restore reads only the landing page; a dropped connection reads everything.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "site-data-incremental";
// A pop-up that keeps something and closes itself, as an OAuth window does.
const SETS = `<script>
  localStorage.setItem('p', 'v1');
  addEventListener('load', () => setTimeout(() => window.close(), 1500));
</script>`;
const TICK = `<script>
  let n = 0;
  setInterval(() => localStorage.setItem('tick', String(++n)), 50);
</script>`;

const fixture = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req) =>
    new Response(
      `<!doctype html><title>page</title>${({ "/tick": TICK, "/sets": SETS } as Record<string, string>)[new URL(req.url).pathname] ?? ""}<body>ok</body>`,
      { headers: { "content-type": "text/html; charset=utf-8" } },
    ),
});
const at = (host: string) => `http://${host}.example.test:${fixture.port}`;
const [A, B, C, POP, OAUTH] = ["a", "b", "c", "pop", "oauth"].map(at) as [
  string,
  string,
  string,
  string,
  string,
];

let server: TestServer;
const call = (method: string, path: string, body?: unknown) => server.call(method, path, body, W);

async function go(url: string, key?: string, value?: string) {
  expect((await call("POST", "/browser/navigate", { url })).status).toBe(200);
  if (key)
    await call("POST", "/browser/script", {
      script: `localStorage.setItem(${JSON.stringify(key)}, ${JSON.stringify(value)})`,
    });
}

async function save(): Promise<{ cookies: number; sites: string[]; skipped: unknown[] }> {
  const res = await call("POST", "/browser/save-site-data", {});
  expect(res.status).toBe(200);
  return res.body.saved;
}

async function saved(origin: string): Promise<Record<string, string>> {
  const host = new URL(origin).hostname;
  const res = await call("GET", `/site-data/${host}`);
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

describe("a save reads what changed", () => {
  test("the first save reads every origin; the next reads the page alone and carries the rest", async () => {
    expect((await call("POST", "/browser", { url: `${A}/`, restore_site_data: false })).status).toBe(200);
    await go(`${A}/`, "k", "a1");
    await go(`${B}/`, "k", "b1");
    await go(`${C}/`, "k", "c1");
    expect((await save()).sites.sort()).toEqual([A, B, C].sort());
    const again = await save();
    expect(again.sites).toEqual([C]);
    expect([await saved(A), await saved(B), await saved(C)]).toEqual([{ k: "a1" }, { k: "b1" }, { k: "c1" }]);
  }, 180_000);

  test("an origin a document loaded since is read again; one nothing loaded is not", async () => {
    await go(`${A}/`, "k", "a2");
    await go(`${C}/`);
    expect((await save()).sites.sort()).toEqual([A, C].sort());
    expect([await saved(A), await saved(B)]).toEqual([{ k: "a2" }, { k: "b1" }]);
  }, 120_000);

  test("a page ticking in another tab shows its newest value at every save, and its origin is saved", async () => {
    await call("POST", "/browser/script", {
      script: `window.open(${JSON.stringify(`${POP}/tick`)}); return 1;`,
    });
    let first = 0;
    for (let i = 0; i < 40 && !first; i++) {
      await Bun.sleep(100);
      const s = await save();
      if (s.sites.includes(POP)) first = Number((await saved(POP)).tick);
    }
    expect(first).toBeGreaterThan(0);
    await Bun.sleep(400);
    const s = await save();
    expect(s.sites).toContain(POP);
    expect(s.sites).not.toContain(B);
    const second = Number((await saved(POP)).tick);
    expect(second).toBeGreaterThan(first);
    await call("POST", "/browser/switch", { tab: "list" });
  }, 120_000);

  test("a pop-up's page joins the history, so its origin is saved even after it closed and the connection dropped", async () => {
    const tabs = async (): Promise<number> =>
      (await call("POST", "/browser/switch", { tab: "list" })).body.tabs.length;
    const before = await tabs();
    await call("POST", "/browser/script", {
      script: `window.open(${JSON.stringify(`${OAUTH}/sets?code=secret-code`)}); return 1;`,
    });
    let n = before;
    for (let i = 0; i < 50 && n <= before; i++) [n] = [await tabs(), await Bun.sleep(50)];
    expect(n).toBe(before + 1);
    for (let i = 0; i < 100 && n > before; i++) [n] = [await tabs(), await Bun.sleep(50)];
    expect(n).toBe(before);
    // The next call records it, below the agent's page and without its query.
    expect((await call("POST", "/browser/script", { script: "return 1" })).status).toBe(200);
    const history = (await server.app.services.store.get(W))?.history ?? [];
    expect(history[0]?.origin).toBe(C);
    expect(history.find((v) => v.origin === OAUTH)?.url).toBe(`${OAUTH}/sets`);
    // A save that reads everything (a new connection knows nothing) reads it from the history.
    const id = (await server.app.services.store.get(W))?.session_id ?? "";
    server.app.services.workspaces.connections.drop(id);
    expect((await save()).sites).toContain(OAUTH);
    expect(await saved(OAUTH)).toEqual({ p: "v1" });
  }, 120_000);

  test("a save right after a restore reads only the landing page; a dropped connection reads everything", async () => {
    expect((await call("DELETE", "/browser")).status).toBe(200);
    const reopened = await call("POST", "/browser", { url: `${C}/` });
    expect(reopened.status).toBe(200);
    expect(reopened.body.site_data.skipped).toEqual([]);
    expect(await save()).toEqual({ cookies: 0, sites: [C], skipped: [] });
    expect([await saved(A), await saved(B)]).toEqual([{ k: "a2" }, { k: "b1" }]);
    const id = (await server.app.services.store.get(W))?.session_id ?? "";
    server.app.services.workspaces.connections.drop(id);
    // The pop-ups' origins are in the history too.
    expect((await save()).sites.sort()).toEqual([A, B, C, POP, OAUTH].sort());
  }, 180_000);
});
