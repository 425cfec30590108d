// Site data side by side on the real Grid: a save of 12 origins runs in several hidden tabs at
// once (a tab per VISITS_PER_TAB sites, at most site_data.tabs) and gives the snapshot the history's
// order gives; a restore writes them from the main tab, lent before its first page (more tabs beside
// it only on a browser with more than 2 cores), and leaves none of their pages in its history; a site whose
// service worker never answers times out in its own tab while the others are read; every hidden
// tab is closed after. The server's BiDi traffic is watched (never changed) to see the tabs work.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BidiSocket } from "../../src/grid/bidi.ts";
import { VISITS_PER_TAB } from "../../src/grid/spare-pool.ts";
import { SPARE_PATH } from "../../src/grid/spare-tab.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "site-data-pool";
const HANG = "site-data-pool-hang";
const N = 12;

const page = (body: string) =>
  new Response(`<!doctype html><html><head><meta charset="utf-8">${body}</head><body>ok</body></html>`, {
    headers: { "content-type": "text/html; charset=utf-8" },
  });

// Each site's page says in its title what it found before its own script ran, then sets two items
// (and, with ?session, a sessionStorage token) when they are not there.
const HOME = `<script>
  const name = location.hostname.split('.')[0];
  const had = localStorage.length;
  const found = sessionStorage.getItem('token') || '-';
  if (!had) {
    localStorage.setItem(name + '-a', 'A ' + name + ' "quoted" </script>');
    localStorage.setItem(name + '-b', 'B ' + name);
  }
  if (location.search === '?session' && found === '-') sessionStorage.setItem('token', 'T-' + name);
  document.title = name + ': local=' + had + '; session=' + found;
</script>`.replace("</script>'", "<\\/script>'");

// A worker that never answers a request for the spare path (and lets everything else through).
const SW_JS = `
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => {
  if (new URL(e.request.url).pathname === '${SPARE_PATH}') e.respondWith(new Promise(() => {}));
});`;

const fixture = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req) {
    const url = new URL(req.url);
    if (url.pathname === "/sw.js")
      return new Response(SW_JS, { headers: { "content-type": "text/javascript" } });
    if (url.pathname === "/sw/")
      return page(`<title>worker page</title><script>localStorage.setItem('kept', 'yes');
        if (navigator.serviceWorker.controller) document.title = 'worker ready';
        else navigator.serviceWorker.register('/sw.js', { scope: '/' });</script>`);
    if (url.pathname === "/home") return page(`<title>home</title>${HOME}`);
    return new Response("not found", { status: 404 });
  },
});
const site = (i: number) => `http://s${i}.example.test:${fixture.port}`;
const SITES = Array.from({ length: N }, (_, i) => site(i));
// A worker needs a secure context: plain http is one on 127.0.0.1 only.
const HUNG = `http://127.0.0.1:${fixture.port}`;

/** What the pages store, per origin, as a save must find it. */
const itemsOf = (i: number) => ({ [`s${i}-a`]: `A s${i} "quoted" </script>`, [`s${i}-b`]: `B s${i}` });

// ---- watching the server's BiDi traffic ----------------------------------------------------

interface Watch {
  /** Tabs at work at once, at most (from a tab's first spare navigation to its last visit). */
  most: number;
  created: string[];
  closed: string[];
  /** When each spare call (a read or a write) answered, and when each spare navigation failed. */
  answered: Array<{ origin: string; at: number }>;
  failed: Array<{ url: string; at: number; why: string }>;
}
let watch: Watch | null = null;
const realSend = BidiSocket.prototype.send;

function watching(): Watch {
  const w: Watch = { most: 0, created: [], closed: [], answered: [], failed: [] };
  const spans = new Map<string, { from: number; to: number }>();
  const busy = () => {
    const all = [...spans.values()];
    w.most = Math.max(w.most, ...all.map((a) => all.filter((b) => b.from <= a.to && a.from <= b.to).length));
  };
  watch = w;
  BidiSocket.prototype.send = function (this: BidiSocket, method: string, params: any, opts?: any) {
    const work = realSend.call(this, method as any, params, opts) as Promise<any>;
    if (watch !== w) return work;
    const spareNav = method === "browsingContext.navigate" && String(params.url).endsWith(SPARE_PATH);
    if (spareNav) {
      const t = performance.now();
      if (!spans.has(params.context)) spans.set(params.context, { from: t, to: t });
    }
    work.then(
      (r) => {
        if (method === "browsingContext.create") w.created.push(r.context);
        if (method === "browsingContext.close") w.closed.push(params.context);
        if (
          method === "script.callFunction" &&
          String(params.functionDeclaration).includes("selenium-flow-spare")
        ) {
          w.answered.push({ origin: String(params.arguments?.[0]?.value), at: performance.now() });
          const span = spans.get(params.target?.context);
          if (span) span.to = performance.now();
          busy();
        }
      },
      (err: Error) => {
        if (spareNav) {
          w.failed.push({ url: String(params.url), at: performance.now(), why: err.message });
        }
      },
    );
    return work;
  } as typeof realSend;
  return w;
}

function stopWatching(): void {
  watch = null;
  BidiSocket.prototype.send = realSend;
}

// ---------------------------------------------------------------------------------------------

let server: TestServer;

async function call(workspace: string, method: string, path: string, body?: unknown) {
  const res = await server.call(method, path, body, workspace);
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function tabsOpen(workspace: string): Promise<string[]> {
  const listed = await call(workspace, "POST", "/browser/switch", { tab: "list" });
  return listed.tabs.map((t: { url: string }) => t.url);
}

beforeAll(async () => {
  server = await startServer();
  expect(server.config.site_data.tabs).toBe(4);
});

afterAll(async () => {
  stopWatching();
  await endAll(server, [W, HANG]);
  await server.close();
  fixture.stop(true);
});

describe("site data side by side on the real Grid", () => {
  test("a save of 12 origins reads them in 3 hidden tabs at once, with the snapshot the history's order gives", async () => {
    await call(W, "POST", "/browser", { url: `${site(0)}/home`, restore_site_data: false });
    for (let i = 1; i < N; i++) {
      const last = i === N - 1;
      const out = await call(W, "POST", "/browser/navigate", {
        url: `${site(i)}/home${last ? "?session" : ""}`,
      });
      expect(out.title).toBe(`s${i}: local=0; session=-`);
    }
    const w = watching();
    const saved = await call(W, "POST", "/browser/save-site-data", {});
    stopWatching();
    // The page first, then the history newest first: what one tab in turn would give.
    const order = [...SITES].reverse();
    expect(saved.saved).toEqual({ cookies: 0, sites: order, skipped: [] });
    const record = await server.app.services.store.get(W);
    expect(Object.keys(record?.site_data.origins ?? {})).toEqual(order);
    for (let i = 0; i < N; i++) expect(record?.site_data.origins?.[site(i)]).toEqual({ local: itemsOf(i) });
    expect(record?.site_data.session).toEqual({ origin: site(N - 1), items: { token: `T-s${N - 1}` } });
    // The eleven other origins went through three tabs, several at once; every one is closed.
    expect(w.created).toHaveLength(Math.ceil((N - 1) / VISITS_PER_TAB));
    expect(w.most).toBeGreaterThan(1);
    expect([...w.closed].sort()).toEqual([...w.created].sort());
    expect(await tabsOpen(W)).toEqual([`${site(N - 1)}/home?session`]);
  }, 180_000);

  test("a restore of 12 origins writes them from the main tab, which keeps none of it in its history; all of it is there when the open returns", async () => {
    const before = (await server.app.services.store.get(W))?.site_data;
    await call(W, "DELETE", "/browser");
    const w = watching();
    const opened = await call(W, "POST", "/browser", {});
    stopWatching();
    expect(opened.site_data).toEqual({
      restored: SITES.map((o) => new URL(o).hostname).sort(),
      skipped: [],
      uri: "workspace://site-data",
    });
    // The main tab did the work: on a browser of 2 cores alone, no tab opened; with more, tabs beside it.
    const cores = (
      await call(W, "POST", "/browser/script", { script: "return navigator.hardwareConcurrency" })
    ).result;
    const beside = cores > 2 ? Math.min(4, cores - 1, N) - 1 : 0;
    expect(w.created).toHaveLength(beside);
    expect([...w.closed].sort()).toEqual([...w.created].sort());
    expect(w.answered.map((a) => a.origin).sort()).toEqual([...SITES].sort());
    // The first page found its sessionStorage and its localStorage before its own script ran.
    expect(opened.url).toBe(`${site(N - 1)}/home?session`);
    expect(opened.title).toBe(`s${N - 1}: local=2; session=T-s${N - 1}`);
    expect(await tabsOpen(W)).toEqual([`${site(N - 1)}/home?session`]);
    // Every origin holds what was saved: a save now reads back the same snapshot.
    await call(W, "POST", "/browser/save-site-data", {});
    const after = (await server.app.services.store.get(W))?.site_data;
    expect(after?.origins).toEqual(before?.origins);
    expect(Object.keys(after?.origins ?? {})).toEqual(Object.keys(before?.origins ?? {}));
    const first = await call(W, "POST", "/browser/navigate", { url: `${site(0)}/home` });
    expect(first.title).toBe("s0: local=2; session=-");
    // Back from the first page is the about:blank the main tab went back to; nothing before it is a
    // site's spare page (the tab moved by location.replace).
    expect((await call(W, "POST", "/browser/navigate", { back: true })).url).toBe(
      `${site(N - 1)}/home?session`,
    );
    expect((await call(W, "POST", "/browser/navigate", { back: true })).url).toBe("about:blank");
    // Back until there is no page before: a clear 409, and no site's spare page on the way.
    let more = true;
    for (let i = 0; i < 5 && more; i++) {
      const res = await server.call("POST", "/browser/navigate", { back: true }, W);
      more = res.status !== 409;
      if (more) expect(res.body.url).not.toContain(SPARE_PATH);
      else expect(res.body.error).toBe("there is no page to go back to in this tab");
    }
    expect(more).toBe(false);
  }, 180_000);

  test("a site whose service worker never answers holds only its own tab: the others are read meanwhile", async () => {
    // The hung site is the newest but one: its visit is the first the tabs take.
    await call(HANG, "POST", "/browser", { url: `${site(0)}/home`, restore_site_data: false });
    for (let i = 1; i < 5; i++) await call(HANG, "POST", "/browser/navigate", { url: `${site(i)}/home` });
    let title = "";
    for (let i = 0; i < 20 && title !== "worker ready"; i++) {
      title = (await call(HANG, "POST", "/browser/navigate", { url: `${HUNG}/sw/` })).title;
      if (title !== "worker ready") await Bun.sleep(250);
    }
    expect(title).toBe("worker ready");
    await call(HANG, "POST", "/browser/navigate", { url: `${site(5)}/home` });
    const w = watching();
    const saved = await call(HANG, "POST", "/browser/save-site-data", {});
    stopWatching();
    expect(saved.saved.sites).toEqual(SITES.slice(0, 6).reverse());
    expect(saved.saved.skipped).toHaveLength(1);
    expect(saved.saved.skipped[0].site).toBe(HUNG);
    expect(saved.saved.skipped[0].reason).toStartWith(
      "the browser's BiDi channel did not answer browsingContext.navigate within",
    );
    // The hung visit timed out after every other origin was read, in the other tabs.
    const hung = w.failed.filter((f) => f.url.startsWith(HUNG));
    expect(hung).toHaveLength(1);
    const others = w.answered.filter((a) => a.origin !== HUNG);
    expect(others).toHaveLength(5);
    for (const a of others) expect(a.at).toBeLessThan((hung[0] as { at: number }).at);
    expect([...w.closed].sort()).toEqual([...w.created].sort());
    expect(await tabsOpen(HANG)).toEqual([`${site(5)}/home`]);
  }, 180_000);
});
