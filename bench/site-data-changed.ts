// A save costs what changed: a save after only the page changed beside one after all of 8 origins
// were visited; a save right after a restore beside a full one (the held connection dropped, so the
// server cannot know what loaded); a one-origin save with IndexedDB beside Playwright's
// storageState({indexedDB: true}). Run from bench/site-data.ts, or alone.
import { chromium } from "playwright-core";
import { median, printTable, type Row, timed } from "./report.ts";
import { benchServer, restCaller } from "./server.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARGS = ["--no-sandbox", "--headless=new", "--host-resolver-rules=MAP *.example.test 127.0.0.1"];

// Each page keeps three localStorage items; /idb also a Firebase-style database and 50 records.
const IDB = `<script>
  const r = indexedDB.open('firebaseLocalStorageDb', 1);
  r.onupgradeneeded = () => { r.result.createObjectStore('firebaseLocalStorage', { keyPath: 'fbase_key' }); r.result.createObjectStore('items', { autoIncrement: true }); };
  r.onsuccess = () => { const tx = r.result.transaction(['firebaseLocalStorage', 'items'], 'readwrite');
    tx.objectStore('firebaseLocalStorage').put({ fbase_key: 'firebase:authUser:k:[DEFAULT]', value: { uid: 'u', stsTokenManager: { accessToken: 'a'.repeat(900) } } });
    for (let i = 0; i < 50; i++) tx.objectStore('items').put({ i, at: new Date(i), tags: ['x', 'y'], body: 'b'.repeat(100) }, i);
    tx.oncomplete = () => { document.title = 'ready'; }; };
</script>`;

/** The sites: `url(i, "/idb")` is a page of origin i with IndexedDB (its title turns "ready"). */
export function idbSites() {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      const name = (req.headers.get("host") ?? "x").split(".")[0];
      const body = `<!doctype html><title>${name}</title><script>
        for (let i = 0; i < 3; i++) localStorage.setItem('${name}-' + i, 'value-' + i + '-'.repeat(40));
      </script>${url.pathname === "/idb" ? IDB : ""}`;
      return new Response(body, { headers: { "content-type": "text/html" } });
    },
  });
  return {
    url: (i: number, path = "/") => `http://s${i}.example.test:${server.port}${path}`,
    stop: () => server.stop(true),
  };
}

export async function changed(): Promise<void> {
  const sites = idbSites();
  const { app, base, close } = await benchServer((config) => {
    config.grid.open_timeout = 300;
  });
  const call = restCaller(base);
  const W = "bench-sd-changed";
  const save = () => call(W, "POST", "/browser/save-site-data", {});
  const drop = async () => {
    const id = (await app.services.store.get(W))?.session_id ?? "";
    app.services.workspaces.connections.drop(id);
  };
  const pw = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  try {
    await call(W, "POST", "/browser", { url: sites.url(0), restore_site_data: false });
    for (let i = 1; i < 8; i++) await call(W, "POST", "/browser/navigate", { url: sites.url(i) });
    const whole = await save();
    if (whole.saved.sites.length !== 8) throw new Error(`saved ${JSON.stringify(whole.saved)}`);
    const pageOnly: number[] = [];
    const allVisited: number[] = [];
    const afterRestore: number[] = [];
    const full: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      await call(W, "POST", "/browser/script", { script: `localStorage.setItem('n', '${r}')` });
      pageOnly.push(await timed(save));
      for (let i = 0; i < 8; i++) await call(W, "POST", "/browser/navigate", { url: sites.url(i) });
      allVisited.push(await timed(save));
      await call(W, "DELETE", "/browser");
      await call(W, "POST", "/browser", {});
      afterRestore.push(await timed(save));
      await drop();
      full.push(await timed(save));
    }
    // One origin with IndexedDB: ours through REST, Playwright's storageState({indexedDB: true}).
    await call(W, "POST", "/browser", { url: sites.url(9, "/idb"), restore_site_data: false });
    const one = await save();
    if (one.saved.sites.length !== 1) throw new Error(`saved ${JSON.stringify(one.saved)}`);
    const context = await pw.newContext();
    const page = await context.newPage();
    await page.goto(sites.url(9, "/idb"));
    await page.waitForFunction(() => document.title === "ready");
    const state = await context.storageState({ indexedDB: true });
    if (!(state.origins[0] as { indexedDB?: unknown[] } | undefined)?.indexedDB?.length)
      throw new Error("Playwright saved no IndexedDB");
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      ours.push(await timed(save));
      theirs.push(await timed(() => context.storageState({ indexedDB: true })));
    }
    await context.close();
    const rows: Row[] = [
      {
        what: "save after only the current page changed (8 origins saved)",
        value: median(pageOnly),
        unit: "ms",
        ref: median(allVisited),
        refName: "a save after all 8 origins were visited",
        target: "≤ 0.2×",
      },
      {
        what: "save right after a restore (8 origins)",
        value: median(afterRestore),
        unit: "ms",
        ref: median(full),
        refName: "a full save (connection dropped: every origin read)",
        target: "≤ 0.2×",
      },
      {
        what: "save, 1 origin with IndexedDB (1 database of 51 records), through REST",
        value: median(ours),
        unit: "ms",
        ref: median(theirs),
        refName: "Playwright storageState({indexedDB: true})",
        target: "≤ 2×",
      },
    ];
    printTable("site data: a save costs what changed", rows);
  } finally {
    await call(W, "DELETE", "/browser").catch(() => undefined);
    await pw.close();
    await close();
    sites.stop();
  }
}

if (import.meta.main) {
  await changed();
  process.exit(0);
}
