// Site data side by side on the real Grid: a save of 12 origins of one site reads them in frames
// of two spare pages, one hidden tab, and gives the snapshot the history's order gives; origins
// that only look alike (two sites under a public suffix) are never written in a frame, where their
// storage would not be their own; a restore writes them from the main tab, lent before its first
// page (more tabs beside it only on a browser with more than 2 cores), and leaves none of their
// pages in its history; a site whose service worker never answers is given up on and the others are
// still read; every hidden tab is closed after. The server's BiDi traffic is watched (never changed) to see the tabs work.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BidiSocket } from "../../src/grid/bidi.ts";
import { SPARE_PATH } from "../../src/grid/net-rules.ts";
import { READ_LOCAL } from "../../src/site-data/scripts.ts";
import { FRAMES_PER_PAGE } from "../../src/site-data/spare-page.ts";
import { SparePool } from "../../src/site-data/spare-pool.ts";
import { withSiteData } from "../../src/store/record.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "site-data-pool";
const HANG = "site-data-pool-hang";
const FR = "site-data-pool-frames";
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
  /** The spare pages tabs navigated to (a tab's first; the rest it reaches by its own page). */
  pages: string[];
  /** Each call in a spare frame: its origin and what it said. */
  frames: Array<{ origin: string; said: string }>;
}
let watch: Watch | null = null;
const realSend = BidiSocket.prototype.send;

function watching(): Watch {
  const w: Watch = { most: 0, created: [], closed: [], answered: [], failed: [], pages: [], frames: [] };
  const spans = new Map<string, { from: number; to: number }>();
  const busy = () => {
    const all = [...spans.values()];
    w.most = Math.max(w.most, ...all.map((a) => all.filter((b) => b.from <= a.to && a.from <= b.to).length));
  };
  watch = w;
  BidiSocket.prototype.send = function (this: BidiSocket, method: string, params: any, opts?: any) {
    const work = realSend.call(this, method as any, params, opts) as Promise<any>;
    if (watch !== w) return work;
    const spareNav =
      method === "browsingContext.navigate" && new URL(String(params.url)).pathname === SPARE_PATH;
    if (spareNav) {
      w.pages.push(String(params.url));
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
          if (String(params.functionDeclaration).includes("partitioned"))
            w.frames.push({ origin: String(params.arguments?.[0]?.value), said: String(r.result?.value) });
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
  await endAll(server, [W, HANG, FR]);
  await server.close();
  fixture.stop(true);
});

describe("site data side by side on the real Grid", () => {
  test("a save of 12 origins of one site reads them in frames of 2 pages in one hidden tab, with the snapshot the history's order gives", async () => {
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
    // The page first, then the history newest first: what one tab in turn would give.
    const order = [...SITES].reverse();
    expect(saved.saved).toEqual({ cookies: 0, sites: order, skipped: [] });
    const record = await server.app.services.store.get(W);
    expect(Object.keys(record?.site_data.origins ?? {})).toEqual(order);
    for (let i = 0; i < N; i++) expect(record?.site_data.origins?.[site(i)]).toEqual({ local: itemsOf(i) });
    expect(record?.site_data.session).toEqual({ origin: site(N - 1), items: { token: `T-s${N - 1}` } });
    // The eleven other origins (one site) went in frames of two pages, FRAMES_PER_PAGE at most a
    // page, in one tab (a tab for every VISITS_PER_TAB pages), which the first page's visit sent on
    // to the second; it is closed.
    expect(w.created).toHaveLength(1);
    expect(w.pages).toHaveLength(1);
    expect(new URL(w.pages[0] as string).searchParams.getAll("f")).toHaveLength(FRAMES_PER_PAGE - 1);
    expect(w.frames.map((f) => f.origin).sort()).toHaveLength(N - 1 - 2);
    // The tab closes after the answer, in the save's turn: the next call finds it gone.
    expect(await tabsOpen(W)).toEqual([`${site(N - 1)}/home?session`]);
    stopWatching();
    expect([...w.closed].sort()).toEqual([...w.created].sort());
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

  test("two sites under a public suffix (github.io) are each written as their own, never in a frame of the other's page; one site's origins are, in frames", async () => {
    // Never resolved: every spare page is the server's own answer, before any lookup.
    const ONE = `http://one.github.io:${fixture.port}`;
    const TWO = `http://two.github.io:${fixture.port}`;
    const snapshot: Record<string, Record<string, string>> = {
      [ONE]: { who: "one", year: "Summer2024" },
      [site(1)]: { who: "s1" },
      [TWO]: { who: "two", year: "Winter2025" },
      [site(2)]: { who: "s2" },
    };
    await call(FR, "POST", "/browser", { url: `${site(0)}/home`, restore_site_data: false });
    await call(FR, "POST", "/browser/save-site-data", {});
    await server.app.services.store.update(FR, (r) => {
      if (!r) throw new Error("no record");
      const origins = { ...r.site_data.origins };
      for (const [o, local] of Object.entries(snapshot)) origins[o] = { local };
      return withSiteData(r, { ...r.site_data, origins });
    });
    await call(FR, "DELETE", "/browser");
    const w = watching();
    const opened = await call(FR, "POST", "/browser", {});
    stopWatching();
    expect(opened.site_data.skipped).toEqual([]);
    expect(opened.site_data.restored).toEqual([
      "one.github.io",
      "s0.example.test",
      "s1.example.test",
      "s2.example.test",
      "two.github.io",
    ]);
    // github.io is a public suffix: TWO went in a frame of ONE's page (the guess), the browser said
    // its storage there is not its own, and it was written from a page of its own. s1 and s2 (one
    // site with s0) were written in frames.
    const said = (o: string) => w.frames.filter((f) => f.origin === o).map((f) => JSON.parse(f.said));
    expect(said(TWO)).toEqual([{ spare: true, origin: TWO, partitioned: true }]);
    for (const o of [site(1), site(2)]) {
      expect(said(o)).toHaveLength(1);
      expect(said(o)[0]).toMatchObject({ spare: true, origin: o });
      expect(said(o)[0].partitioned).toBeUndefined();
    }
    expect(said(ONE)).toEqual([]);
    // Read back where each site's storage is its own: top-level pages, one origin each, no frames.
    const id = (await server.app.services.store.get(FR))?.session_id ?? "";
    const held = await server.app.services.workspaces.connections.get(id);
    const pool = new SparePool(held.socket, 1);
    try {
      const read = await pool.run(Object.keys(snapshot).map((origin) => ({ origin, fn: READ_LOCAL })));
      for (const o of read) {
        expect(o.ok).toBe(true);
        if (o.ok) expect((o.value as { local: unknown }).local).toEqual(snapshot[o.origin]);
      }
    } finally {
      await pool.close();
      await call(FR, "DELETE", "/browser");
    }
  }, 180_000);

  test("a site whose service worker never answers is given up on, and the others are still read in the same save", async () => {
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
    expect(saved.saved.sites).toEqual(SITES.slice(0, 6).reverse());
    expect(saved.saved.skipped).toHaveLength(1);
    expect(saved.saved.skipped[0].site).toBe(HUNG);
    expect(saved.saved.skipped[0].reason).toStartWith(
      "the browser's BiDi channel did not answer browsingContext.navigate within",
    );
    // The hung visit (the first: one tab, on a browser of 2 cores, takes both pages) timed out; the
    // five others, in frames of one page, were read after it in the same tab.
    const hung = w.failed.filter((f) => f.url.startsWith(HUNG));
    expect(hung).toHaveLength(1);
    const others = w.answered.filter((a) => a.origin !== HUNG);
    expect(others.map((a) => a.origin).sort()).toEqual(SITES.slice(0, 5).sort());
    expect(w.frames).toHaveLength(4);
    expect(await tabsOpen(HANG)).toEqual([`${site(5)}/home`]);
    stopWatching();
    expect([...w.closed].sort()).toEqual([...w.created].sort());
  }, 180_000);
});
