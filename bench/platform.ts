// The server's cost per action: the same navigate to a local page through REST, through MCP and
// straight to the Grid; and the binary's start-up time and idle memory beside a bare Bun server's.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { buildBinary } from "../scripts/build.ts";
import { Grid } from "../src/grid/webdriver.ts";
import { testGridUrl } from "../test/support/env.ts";
import { html, serveFixture } from "../test/support/fixtures.ts";
import { median, printTable, type Row, timed } from "./report.ts";
import { benchServer, TOKEN } from "./server.ts";

// The raw classic reference: the page's url and title in one round trip, as this server read them
// before it held a BiDi connection.
async function pageState(driver: import("selenium-webdriver").WebDriver) {
  return driver.executeScript("return [location.href, document.title]");
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);

async function navigateCosts(): Promise<Row[]> {
  const site = serveFixture({
    "/a": () => html("<title>A</title><p>a"),
    "/b": () => html("<title>B</title><p>b"),
  });
  const { app, server, base } = await benchServer();
  const grid = new Grid(testGridUrl);
  const raw = await grid.open({ browser: "chrome" });
  const mcp = new Client({ name: "bench", version: "1" });
  try {
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp?workspace=bench`), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    const rest = (url: string) =>
      fetch(`${base}/browser/navigate`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${TOKEN}`,
          "x-workspace": "bench",
          "content-type": "application/json",
        },
        body: JSON.stringify({ url }),
      }).then((r) => r.json());
    const viaMcp = (url: string) => mcp.callTool({ name: "navigate", arguments: { url } });
    // The same WebDriver commands the action issues: go, then read url and title.
    const driver = grid.attach(raw.id);
    const straight = async (url: string) => {
      await driver.get(url);
      await pageState(driver);
    };
    await rest(site.url("/a")); // opens the workspace's browser
    const samples = { rest: [] as number[], mcp: [] as number[], raw: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      const url = site.url(i % 2 ? "/a" : "/b");
      samples.raw.push(await timed(() => straight(url)));
      samples.rest.push(await timed(() => rest(url)));
      samples.mcp.push(await timed(() => viaMcp(url)));
    }
    const ref = median(samples.raw);
    return [
      { what: "navigate, straight to the Grid", value: ref, unit: "ms", ref, refName: "itself" },
      {
        what: "navigate through REST",
        value: median(samples.rest),
        unit: "ms",
        ref,
        refName: "raw WebDriver",
        target: "≤ 1.15×",
      },
      {
        what: "navigate through MCP",
        value: median(samples.mcp),
        unit: "ms",
        ref,
        refName: "raw WebDriver",
        target: "≤ 1.25×",
      },
    ];
  } finally {
    await mcp.close().catch(() => undefined);
    await fetch(`${base}/browser`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": "bench" },
    }).catch(() => undefined);
    await grid.end(raw.id);
    await server.stop(true);
    await app.close();
    site.stop();
  }
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? "0");
  return kb / 1024;
}

/** Spawns a server binary and times its first HTTP 200; then its idle RSS after a few requests. */
async function startUp(binary: string, args: string[], env: Record<string, string>, path: string) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const t = performance.now();
  const proc = Bun.spawn([binary, ...args], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port), ...env },
    stdout: "ignore",
    stderr: "ignore",
  });
  let first = Number.NaN;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      if (res.status === 200) {
        first = performance.now() - t;
        break;
      }
    } catch {}
    if (performance.now() - t > 10_000) break;
    await Bun.sleep(2);
  }
  for (let i = 0; i < 20; i++) await fetch(`http://127.0.0.1:${port}${path}`).catch(() => undefined);
  await Bun.sleep(500);
  const rss = rssMb(proc.pid);
  proc.kill();
  await proc.exited;
  return { first, rss };
}

async function binaryFigures(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "sf-bench-"));
  try {
    const ours = join(dir, "selenium-flow");
    await buildBinary({ entry: "src/main.ts", outfile: ours });
    // The reference: the smallest Bun HTTP server, compiled the same way.
    const bareSrc = join(dir, "bare.ts");
    writeFileSync(
      bareSrc,
      `Bun.serve({ hostname: "127.0.0.1", port: Number(process.env.PORT), fetch: () => new Response("ok") });`,
    );
    const bare = join(dir, "bare");
    const built = await Bun.build({ entrypoints: [bareSrc], compile: { outfile: bare }, target: "bun" });
    if (!built.success) throw new Error("the reference server did not build");
    const firsts = { ours: [] as number[], bare: [] as number[] };
    const rss = { ours: [] as number[], bare: [] as number[] };
    for (let i = 0; i < 5; i++) {
      const o = await startUp(ours, [], { GRID_URL: testGridUrl, DATA_DIR: join(dir, `data${i}`) }, "/ui/");
      const b = await startUp(bare, [], {}, "/");
      firsts.ours.push(o.first);
      firsts.bare.push(b.first);
      rss.ours.push(o.rss);
      rss.bare.push(b.rss);
    }
    return [
      {
        what: "binary: first HTTP 200 after start",
        value: median(firsts.ours),
        unit: "ms",
        ref: median(firsts.bare),
        refName: "bare Bun.serve binary",
        target: "≤ 100 ms",
      },
      {
        what: "binary: idle RSS",
        value: median(rss.ours),
        unit: "MB",
        ref: median(rss.bare),
        refName: "bare Bun.serve binary",
        target: "≤ 80 MB",
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function main(): Promise<void> {
  const rows = [...(await navigateCosts()), ...(await binaryFigures())];
  printTable("platform", rows);
}

if (import.meta.main) await main();
