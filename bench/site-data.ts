// Site data: save time per origin (1, 5 and 20 origins) and the restore's own cost ("open with
// restore" minus "plain open", 5 origins), each beside Playwright's storageState() save and restore
// of the same origins on the same Chromium, in the same run. At most two browsers at a time: one
// on the Grid, one Playwright.
import { type Browser, chromium } from "playwright-core";
import { SANDBOX } from "../src/grid/bidi.ts";
import { Grid } from "../src/grid/webdriver.ts";
import { setLogLevel } from "../src/log.ts";
import { READ_PAGE } from "../src/site-data/scripts.ts";
import { testGridUrl } from "../test/support/env.ts";
import { median, printTable, type Row, timed } from "./report.ts";
import { benchServer, TOKEN } from "./server.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const ARGS = [
  "--no-sandbox",
  "--headless=new",
  "--host-resolver-rules=MAP *.example.test 127.0.0.1",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** One page per host: a cookie from the server, three localStorage items from the page (and, with
 * `?session`, a sessionStorage token). */
function startSites() {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const host = (req.headers.get("host") ?? "").split(":")[0] ?? "";
      const name = host.split(".")[0] ?? "x";
      const body = `<!doctype html><title>${name}</title><script>
        for (let i = 0; i < 3; i++) localStorage.setItem('${name}-' + i, 'value-' + i + '-'.repeat(40));
        if (location.search === '?session') sessionStorage.setItem('token', 't-'.repeat(20));
      </script>`;
      return new Response(body, {
        headers: { "content-type": "text/html", "set-cookie": `sid-${name}=s-${name}; Path=/; HttpOnly` },
      });
    },
  });
  const port = server.port as number;
  return { url: (i: number) => `http://s${i}.example.test:${port}/`, stop: () => server.stop(true) };
}

export async function main(): Promise<void> {
  setLogLevel("warn");
  const sites = startSites();
  const { app, server, base } = await benchServer((config) => {
    config.grid.open_timeout = 300;
  });
  const call = async (workspace: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "x-workspace": workspace,
        "content-type": "application/json",
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const out = (await res.json()) as any;
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(out)}`);
    return out;
  };
  let browser: Browser | null = null;
  const workspaces = ["bench-sd-1", "bench-sd-5", "bench-sd-5s", "bench-sd-20", "bench-sd-plain"];
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: false, args: ARGS });
    const saveRows: Row[] = [];
    let floorRow: Row | null = null;
    let state5: Awaited<ReturnType<import("playwright-core").BrowserContext["storageState"]>> | null = null;
    for (const n of [1, 5, 20]) {
      const w = `bench-sd-${n}`;
      // Ours: the workspace visits n origins, then saves; the last one is the page.
      await call(w, "POST", "/browser", { url: sites.url(0), restore_site_data: false });
      for (let i = 1; i < n; i++) await call(w, "POST", "/browser/navigate", { url: sites.url(i) });
      const first = await call(w, "POST", "/browser/save-site-data", {});
      if (first.saved.sites.length !== n)
        throw new Error(`saved ${first.saved.sites.length} of ${n} origins`);
      // Playwright: one context visits the same origins in one page, then storageState().
      const context = await browser.newContext();
      const page = await context.newPage();
      for (let i = 0; i < n; i++) await page.goto(sites.url(i));
      const state = await context.storageState();
      if (state.origins.length !== n)
        throw new Error(`Playwright saved ${state.origins.length} of ${n} origins`);
      if (n === 5) state5 = state;
      // Alternated, so both see the same machine.
      const ours: number[] = [];
      const theirs: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        ours.push(await timed(() => call(w, "POST", "/browser/save-site-data", {})));
        theirs.push(await timed(() => context.storageState()));
      }
      await context.close();
      await call(w, "DELETE", "/browser");
      if (n === 1) {
        // The floor for one origin under the same design: the same reads done by hand over one
        // held BiDi socket, all at once (the jar, the page's storages in the sandbox, the tree).
        const grid = new Grid(testGridUrl);
        const raw = await grid.open({ browser: "chrome" });
        const floor: number[] = [];
        const mine: number[] = [];
        try {
          await call(w, "POST", "/browser", { url: sites.url(0) });
          await raw.driver.get(sites.url(0));
          const socket = await grid.bidi(raw.id);
          const tab = await raw.driver.getWindowHandle();
          const read = READ_PAGE;
          for (let r = 0; r < ROUNDS; r++) {
            mine.push(await timed(() => call(w, "POST", "/browser/save-site-data", {})));
            floor.push(
              await timed(async () => {
                await Promise.all([
                  socket.send("storage.getCookies", {}),
                  socket.send("script.callFunction", {
                    functionDeclaration: read,
                    target: { context: tab, sandbox: SANDBOX },
                    awaitPromise: false,
                  }),
                  socket.send("browsingContext.getTree", { root: tab }),
                ]);
              }),
            );
          }
          socket.close();
        } finally {
          await grid.end(raw.id);
          await call(w, "DELETE", "/browser");
        }
        floorRow = {
          what: "save, 1 origin, whole (same run, second pass)",
          value: median(mine),
          unit: "ms",
          ref: median(floor),
          refName: "raw WebDriver + BiDi through the Grid: (socket, then the jar) ∥ the page script",
        };
      }
      saveRows.push({
        what: `save, per origin (${n} origin${n > 1 ? "s" : ""}; whole save ${median(ours).toFixed(0)} ms)`,
        value: median(ours) / n,
        unit: "ms",
        ref: median(theirs) / n,
        refName: `Playwright storageState() (whole ${median(theirs).toFixed(0)} ms)`,
        target: "≤ 60 ms, ≤ 1.5×",
      });
    }

    // The same five sites, saved on a page that holds a sessionStorage token: what Playwright does
    // not restore, so its figure stands beside ours without it.
    await call("bench-sd-5s", "POST", "/browser", { url: sites.url(0), restore_site_data: false });
    for (let i = 1; i < 5; i++)
      await call("bench-sd-5s", "POST", "/browser/navigate", {
        url: `${sites.url(i)}${i === 4 ? "?session" : ""}`,
      });
    const withSession = await call("bench-sd-5s", "POST", "/browser/save-site-data", {});
    if (withSession.saved.sites.length !== 5) throw new Error(`saved ${JSON.stringify(withSession.saved)}`);
    await call("bench-sd-5s", "DELETE", "/browser");

    // Restore: the 5-origin workspace opens with its snapshot; an empty one opens plain. Playwright:
    // a context with the same storageState, and one without. Alternated, round by round.
    const withData: number[] = [];
    const withTab: number[] = [];
    const plain: number[] = [];
    const pwWith: number[] = [];
    const pwPlain: number[] = [];
    const pw = browser;
    for (let r = 0; r < ROUNDS; r++) {
      withData.push(await timed(() => call("bench-sd-5", "POST", "/browser", { fresh: true })));
      await call("bench-sd-5", "DELETE", "/browser");
      withTab.push(await timed(() => call("bench-sd-5s", "POST", "/browser", { fresh: true })));
      await call("bench-sd-5s", "DELETE", "/browser");
      plain.push(await timed(() => call("bench-sd-plain", "POST", "/browser", { fresh: true })));
      await call("bench-sd-plain", "DELETE", "/browser");
      const t0 = performance.now();
      const bare = await pw.newContext();
      pwPlain.push(performance.now() - t0);
      await bare.close();
      const t1 = performance.now();
      const restored = await pw.newContext({ storageState: state5 ?? undefined });
      pwWith.push(performance.now() - t1);
      await restored.close();
    }
    const check = await call("bench-sd-5", "POST", "/browser", { fresh: true });
    if (check.site_data?.restored?.length !== 5)
      throw new Error(`restored ${JSON.stringify(check.site_data)}`);
    await call("bench-sd-5", "DELETE", "/browser");
    const oursCost = median(withData) - median(plain);
    const theirCost = median(pwWith) - median(pwPlain);
    printTable("site data: save", floorRow ? [...saveRows, floorRow] : saveRows);
    printTable("site data: restore, 5 origins", [
      {
        what: `restore's own cost (open with restore ${median(withData).toFixed(0)} ms − plain open ${median(plain).toFixed(0)} ms)`,
        value: oursCost,
        unit: "ms",
        ref: theirCost,
        refName: `Playwright newContext({storageState}) − newContext() (${median(pwWith).toFixed(0)} − ${median(pwPlain).toFixed(0)} ms)`,
        target: "≤ 400 ms, ≤ 1.5×",
      },
      {
        what: `the same with the page's sessionStorage too (open ${median(withTab).toFixed(0)} ms − plain open)`,
        value: median(withTab) - median(plain),
        unit: "ms",
        ref: oursCost,
        refName: "ours without it, above (Playwright restores no sessionStorage)",
      },
    ]);
  } finally {
    for (const w of workspaces) await call(w, "DELETE", "/browser").catch(() => undefined);
    await browser?.close();
    server.stop(true);
    await app.close();
    sites.stop();
  }
}

if (import.meta.main) {
  await main();
  process.exit(0);
}
