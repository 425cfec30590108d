// The server's cost for interact click, write and extract through REST, beside the same WebDriver
// work done straight to the Grid (the element found by the same CSS, then the page's url and title);
// and read_page's time and size on three fixture pages beside the page's own HTML (its size, and the
// time to fetch it with getPageSource). `bun bench/actions.ts`; BENCH_ROUNDS sets the rounds.
import { By } from "selenium-webdriver";
import { Grid } from "../src/grid/webdriver.ts";
import { testGridUrl } from "../test/support/env.ts";
import { html, serveFixture } from "../test/support/fixtures.ts";
import { actionPages, pageHtml } from "../test/support/pages.ts";
import { median, printTable, type Row, timed } from "./report.ts";
import { benchServer, TOKEN } from "./server.ts";

// The raw classic reference: the page's url and title in one round trip, as this server read them
// before it held a BiDi connection.
async function pageState(driver: import("selenium-webdriver").WebDriver) {
  return driver.executeScript("return [location.href, document.title]");
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const W = "bench-actions";

const PAGE = `<title>Bench</title>
<button id="b" onclick="document.getElementById('n').textContent = String(Number(document.getElementById('n').textContent) + 1)">Add</button>
<span id="n">0</span>
<input id="t" aria-label="Text">
<p id="p">A paragraph to read back.</p>`;

export async function main(): Promise<void> {
  const site = serveFixture({ ...actionPages, "/bench": () => html(PAGE) });
  const { app, server, base } = await benchServer();
  const grid = new Grid(testGridUrl);
  const raw = await grid.open({ browser: "chrome" });
  const rest = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": W, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const out = (await res.json()) as any;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(out)}`);
    return out;
  };
  try {
    const driver = grid.attach(raw.id);
    await driver.get(site.url("/bench"));
    await rest("/browser/navigate", { url: site.url("/bench") });

    const cases: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
      [
        "interact click",
        () => rest("/browser/interact/click", { selector: { css: "#b" } }),
        async () => {
          await (await driver.findElement(By.css("#b"))).click();
          await pageState(driver);
        },
      ],
      [
        "write (clear, 12 characters)",
        () => rest("/browser/write", { selector: { css: "#t" }, text: "hello, world" }),
        async () => {
          const el = await driver.findElement(By.css("#t"));
          await el.clear();
          await el.sendKeys("hello, world");
          await pageState(driver);
        },
      ],
      [
        "extract text",
        () => rest("/browser/extract", { selector: { css: "#p" } }),
        async () => {
          await (await driver.findElement(By.css("#p"))).getText();
          await pageState(driver);
        },
      ],
    ];
    const rows: Row[] = [];
    for (const [what, viaServer, straight] of cases) {
      await viaServer();
      await straight();
      const s: number[] = [];
      const r: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        r.push(await timed(straight));
        s.push(await timed(viaServer));
      }
      rows.push({
        what: `${what} through REST`,
        value: median(s),
        unit: "ms",
        ref: median(r),
        refName: "raw WebDriver (findElement by the same CSS)",
        target: "≤ 1.15×",
      });
    }

    for (const path of ["/form", "/article", "/big"]) {
      await rest("/browser/navigate", { url: site.url(path) });
      await driver.get(site.url(path));
      const t: number[] = [];
      const src: number[] = [];
      let size = 0;
      for (let i = 0; i < Math.max(5, Math.round(ROUNDS / 4)); i++) {
        src.push(await timed(() => driver.getPageSource()));
        t.push(
          await timed(async () => {
            size = JSON.stringify(await rest("/browser/read", {})).length;
          }),
        );
      }
      const pageSize = (await pageHtml(path)).length;
      rows.push({
        what: `read_page ${path}: time`,
        value: median(t),
        unit: "ms",
        ref: median(src),
        refName: "getPageSource straight to the Grid",
      });
      rows.push({
        what: `read_page ${path}: output (default max_length)`,
        value: size,
        unit: "chars",
        ref: pageSize,
        refName: "the page's own HTML",
      });
    }
    printTable("page actions", rows);
  } finally {
    await fetch(`${base}/browser`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": W },
    }).catch(() => undefined);
    await grid.end(raw.id);
    await server.stop(true);
    await app.close();
    site.stop();
  }
}

if (import.meta.main) await main();
