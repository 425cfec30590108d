// A restore with IndexedDB: 5 origins, each with a Firebase-style database and 50 records beside
// three localStorage items, its own time inside the open, beside Playwright's
// newContext({storageState}) of the same origins saved with storageState({indexedDB: true}), less a
// bare newContext(), in the same run, round by round. Run from bench/site-data.ts, or alone.
import { chromium } from "playwright-core";
import { siteDataHooks } from "../src/site-data/hooks.ts";
import { median, printTable, timed } from "./report.ts";
import { benchServer, restCaller, timedRestore } from "./server.ts";
import { idbSites } from "./site-data-changed.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARGS = ["--no-sandbox", "--headless=new", "--host-resolver-rules=MAP *.example.test 127.0.0.1"];
const N = 5;

export async function idbRestore(): Promise<void> {
  const sites = idbSites();
  const restores: number[] = [];
  const hooks = siteDataHooks(() => Date.now() / 1000);
  const { app, base, close } = await benchServer(
    (config) => {
      config.grid.open_timeout = 300;
    },
    { hooks: timedRestore(hooks, restores) },
  );
  const call = restCaller(base);
  const W = "bench-sd-idb-restore";
  const pw = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  const urls = Array.from({ length: N }, (_, i) => sites.url(20 + i, "/idb"));
  const ready = `return new Promise((ok) => { const t = () => document.title === 'ready' ? ok(1) : setTimeout(t, 20); t(); })`;
  try {
    await call(W, "POST", "/browser", { url: urls[0], restore_site_data: false });
    await call(W, "POST", "/browser/script", { script: ready });
    for (const url of urls.slice(1)) {
      await call(W, "POST", "/browser/navigate", { url });
      await call(W, "POST", "/browser/script", { script: ready });
    }
    const saved = await call(W, "POST", "/browser/save-site-data", {});
    if (saved.saved.sites.length !== N) throw new Error(`saved ${JSON.stringify(saved.saved)}`);
    const stored = (await app.services.store.get(W))?.site_data.origins ?? {};
    if (Object.values(stored).filter((e) => (e.idb?.length ?? 0) > 0).length !== N)
      throw new Error("not every origin's IndexedDB was saved");
    await call(W, "DELETE", "/browser");

    const context = await pw.newContext();
    const page = await context.newPage();
    for (const url of urls) {
      await page.goto(url);
      await page.waitForFunction(() => document.title === "ready");
    }
    const state = await context.storageState({ indexedDB: true });
    await context.close();
    if (state.origins.filter((o) => (o as { indexedDB?: unknown[] }).indexedDB?.length).length !== N)
      throw new Error("Playwright saved IndexedDB for fewer origins");

    const ours: number[] = [];
    const theirs: number[] = [];
    const bare: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const before = restores.length;
      const opened = await call(W, "POST", "/browser", { fresh: true });
      await call(W, "DELETE", "/browser");
      if (restores.length !== before + 1 || opened.site_data?.restored?.length !== N)
        throw new Error(`the restore: ${JSON.stringify(opened.site_data)}`);
      ours.push(restores[before] as number);
      let plain: Awaited<ReturnType<typeof pw.newContext>> | null = null;
      bare.push(await timed(async () => (plain = await pw.newContext())));
      await (plain as Awaited<ReturnType<typeof pw.newContext>> | null)?.close();
      let full: Awaited<ReturnType<typeof pw.newContext>> | null = null;
      theirs.push(await timed(async () => (full = await pw.newContext({ storageState: state }))));
      await (full as Awaited<ReturnType<typeof pw.newContext>> | null)?.close();
    }
    // It came back: the database is there with its records in the next browser.
    await call(W, "POST", "/browser", { url: urls[N - 1] });
    const count = await call(W, "POST", "/browser/script", {
      script: `return new Promise((ok, no) => { const r = indexedDB.open('firebaseLocalStorageDb'); r.onerror = no; r.onsuccess = () => { const q = r.result.transaction('items').objectStore('items').count(); q.onsuccess = () => ok(q.result); }; })`,
    });
    if (count.result !== 50) throw new Error(`restored records: ${JSON.stringify(count)}`);
    const theirsNet = median(theirs) - median(bare);
    printTable("site data: a restore with IndexedDB", [
      {
        what: `restore, ${N} origins with IndexedDB (51 records each) and localStorage, inside the open`,
        value: median(ours),
        unit: "ms",
        ref: theirsNet,
        refName: `Playwright newContext({storageState}) − newContext() (${median(theirs).toFixed(0)} − ${median(bare).toFixed(0)} ms)`,
        target: "≤ 1.2×",
      },
    ]);
  } finally {
    await call(W, "DELETE", "/browser").catch(() => undefined);
    await pw.close();
    await close();
    sites.stop();
  }
}

if (import.meta.main) {
  await idbRestore();
  process.exit(0);
}
