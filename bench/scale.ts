import { openStore } from "../src/store/index.ts";
import type { RecordStore } from "../src/store/types.ts";
import { testGridUrl } from "../test/support/env.ts";
import { html, serveFixture } from "../test/support/fixtures.ts";
import { startGridLedger } from "../test/support/grid-ledger.ts";
import { type ServerProcess, startProcess } from "../test/support/process.ts";
import { startRedis } from "../test/support/redis-server.ts";
import { startRoundRobin } from "../test/support/round-robin.ts";
import { printTable, type Row } from "./report.ts";

const TOKEN = "bench-scale-token";
// Each navigate goes to an origin of its own; a history keeps 100 origins, so every one must be there.
const ROUNDS = Math.min(45, Number(process.env.BENCH_ROUNDS ?? 12));
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 2);
const ACTIONS = ["navigate", "extract", "execute_script"] as const;
type Action = (typeof ACTIONS)[number];

interface Run {
  calls: number;
  seconds: number;
  ms: Record<Action, number[]>;
  errors: string[];
  waits: { count: number; ms: number };
  lost: number;
  pages: number;
}

function percentile(xs: number[], p: number): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number;
}

async function gridSlots(grid: string): Promise<number> {
  const body = (await (await fetch(`${grid}/status`)).json()) as {
    value: { nodes: Array<{ slots: unknown[] }> };
  };
  return body.value.nodes.reduce((n, node) => n + node.slots.length, 0);
}

/** The lease waits the servers logged since `from` (each one's output length then). */
function waitsIn(servers: ServerProcess[], from: number[]): { count: number; ms: number } {
  let count = 0;
  let ms = 0;
  servers.forEach((s, i) => {
    for (const m of s
      .output()
      .slice(from[i])
      .matchAll(/waited (\d+) ms for its turn/g)) {
      count++;
      ms += Number(m[1]);
    }
  });
  return { count, ms };
}

async function drive(
  base: string,
  servers: ServerProcess[],
  store: RecordStore,
  site: { url(path?: string, host?: string): string },
  workspaces: string[],
): Promise<Run> {
  const call = async (w: string, path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": w, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text };
  };
  // Each workspace's browser opens before the clock starts.
  await Promise.all(
    workspaces.map((w) => call(w, "/browser/navigate", { url: site.url("/", `start-${w}.example.test`) })),
  );
  const ms: Record<Action, number[]> = { navigate: [], extract: [], execute_script: [] };
  const errors: string[] = [];
  const visited = new Map<string, Set<string>>(workspaces.map((w) => [w, new Set()]));
  const from = servers.map((s) => s.output().length);
  const began = performance.now();
  let calls = 0;
  const client = async (w: string, c: number) => {
    for (let r = 0; r < ROUNDS; r++) {
      const host = `c${c}r${r}-${w}.example.test`;
      const steps: Array<[Action, string, unknown]> = [
        ["navigate", "/browser/navigate", { url: site.url("/", host) }],
        ["extract", "/browser/extract", { selector: { css: "h1" } }],
        ["execute_script", "/browser/script", { script: "document.querySelectorAll('p').length" }],
      ];
      for (const [action, path, body] of steps) {
        const t = performance.now();
        const res = await call(w, path, body);
        ms[action].push(performance.now() - t);
        calls++;
        if (res.status !== 200) errors.push(`${action} ${res.status}: ${res.text.slice(0, 160)}`);
        else if (action === "navigate") visited.get(w)!.add(new URL(site.url("/", host)).origin);
      }
    }
  };
  await Promise.all(workspaces.flatMap((w) => Array.from({ length: CLIENTS }, (_, c) => client(w, c))));
  const seconds = (performance.now() - began) / 1000;
  const waits = waitsIn(servers, from);
  // Every page a navigate answered 200 for is in the history: no write lost another's.
  let lost = 0;
  let pages = 0;
  for (const w of workspaces) {
    const kept = new Set((await store.get(w))?.history.map((v) => v.origin) ?? []);
    for (const origin of visited.get(w)!) {
      pages++;
      if (!kept.has(origin)) lost++;
    }
  }
  for (const w of workspaces) {
    const res = await fetch(`${base}/browser`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": w },
    });
    await res.text();
  }
  return { calls, seconds, ms, errors, waits, lost, pages };
}

export async function main(): Promise<void> {
  const slots = await gridSlots(testGridUrl);
  const redis = await startRedis();
  const ledger = startGridLedger(testGridUrl);
  const site = serveFixture({
    "/": (req) => {
      const host = new URL(req.url).host;
      return html(`<title>${host}</title><h1>${host}</h1><p>one</p><p>two</p>`);
    },
  });
  const key = "bench-scale-store-key-0123456789abcdef";
  const env = {
    AUTH_TOKEN: TOKEN,
    GRID_URL: ledger.url,
    STORE_URL: redis.url,
    STORE_KEY: key,
    LOG_LEVEL: "debug",
  };
  const [a, b, solo] = await Promise.all([startProcess(env), startProcess(env), startProcess(env)]);
  const store = await openStore({ storeUrl: redis.url, ttl: 86_400, key });
  let failed = false;
  try {
    for (let n = 2; n <= Math.max(2, slots); n++) {
      const group = startRoundRobin([a.base, b.base]);
      const one = startRoundRobin([solo.base]);
      const names = (tag: string) => Array.from({ length: n }, (_, i) => `${tag}${n}-w${i}`);
      const g = await drive(group.url, [a, b], store, site, names("group"));
      const s = await drive(one.url, [solo], store, site, names("solo"));
      const split = group.sent.join(" / ");
      group.stop();
      one.stop();
      const rows: Row[] = [
        {
          what: `calls per second, ${n} workspaces × ${CLIENTS} clients`,
          value: g.calls / g.seconds,
          unit: "/s",
          ref: s.calls / s.seconds,
          refName: "one server alone",
        },
      ];
      for (const action of ACTIONS) {
        for (const p of [50, 99]) {
          rows.push({
            what: `${action} p${p}`,
            value: percentile(g.ms[action], p),
            unit: "ms",
            ref: percentile(s.ms[action], p),
            refName: "one server alone",
          });
        }
      }
      rows.push({
        what: "calls that waited for their workspace's lease",
        value: g.waits.count,
        unit: "calls",
        ref: s.waits.count,
        refName: "one server alone",
      });
      rows.push({
        what: "mean lease wait of those",
        value: g.waits.count ? g.waits.ms / g.waits.count : 0,
        unit: "ms",
        ref: s.waits.count ? s.waits.ms / s.waits.count : 0,
        refName: "one server alone",
      });
      printTable(`two servers on one Redis behind round robin (requests ${split}), ${g.calls} calls`, rows);
      for (const [name, run] of [
        ["two servers", g],
        ["one server", s],
      ] as const) {
        console.log(
          `${name}: ${run.errors.length} failed calls; history: ${run.lost} of ${run.pages} pages lost`,
        );
        for (const e of run.errors.slice(0, 5)) console.log(`  ${e}`);
        if (run.errors.length || run.lost) failed = true;
      }
    }
    // The servers ended every workspace's browser: none of the browsers they opened may live on.
    const alive = await ledger.alive();
    console.log(`browsers opened through the Grid: ${ledger.opened.length}; still running: ${alive.length}`);
    if (alive.length) failed = true;
    console.log(
      failed ? "FAILED: something leaked or failed (above)" : "0 leaked browsers, 0 lost history entries",
    );
  } finally {
    await ledger.endAll();
    await Promise.all([a, b, solo].map((p) => p.stop()));
    await store.close();
    ledger.stop();
    site.stop();
    await redis.stop();
  }
  if (failed) process.exitCode = 1;
}

if (import.meta.main) await main();
