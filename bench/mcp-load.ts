// The server's own cost per call over MCP beside REST's, under the same load: N agents at once, each
// in a workspace of its own, each calling navigate again and again. The Grid is a fake on the wire
// (test/support/wire-grid.ts: real HTTP and WebSockets, no browser), so what is measured is the
// server: its CPU time per call, read from /proc for the server's own process (`bun src/main.ts`),
// and the calls per second all agents together got. Both sides are plain fetch calls from this
// process, one JSON body each way, so neither client costs the server more than the other.
// `bun bench/mcp-load.ts`; BENCH_AGENTS=10,100 sets the loads, BENCH_CALLS the calls per load.
import { readFileSync } from "node:fs";
import { type ServerProcess, startProcess } from "../test/support/process.ts";
import { startWireGrid } from "../test/support/wire-grid.ts";
import { printTable, type Row } from "./report.ts";

const TOKEN = "bench-mcp-load-token";
const LOADS = (process.env.BENCH_AGENTS ?? "10,100").split(",").map(Number);
const CALLS = Number(process.env.BENCH_CALLS ?? 4000);
const ROUNDS = 4;
const PAGE = "http://app.example.test/";

/** CPU seconds the process has used (user + system), from /proc. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One agent's way to call navigate: each call's url differs, so each is a real navigation. */
type Caller = (url: string) => Promise<void>;

function restAgent(base: string, workspace: string): Caller {
  return async (url) => {
    const res = await fetch(`${base}/browser/navigate`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "x-workspace": workspace,
        "content-type": "application/json",
      },
      body: JSON.stringify({ url }),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`REST navigate: ${res.status} ${text.slice(0, 200)}`);
  };
}

/** The JSON-RPC reply in a body that is JSON or an event stream. */
function reply(text: string): any {
  if (text.startsWith("{")) return JSON.parse(text);
  const lines = [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1] as string));
  return lines.find((m) => m && "id" in m);
}

/** An MCP agent on 2025-11-25: initialize once (not timed), then a tools/call per call. */
async function mcpAgent(base: string, workspace: string): Promise<Caller> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${TOKEN}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "x-workspace": workspace,
  };
  const init = await fetch(`${base}/mcp`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "bench", version: "1" },
      },
    }),
  });
  const initText = await init.text();
  const session = init.headers.get("mcp-session-id");
  if (!session) throw new Error(`MCP initialize: ${init.status} ${initText.slice(0, 200)}`);
  headers["mcp-session-id"] = session;
  headers["mcp-protocol-version"] = "2025-11-25";
  await (
    await fetch(`${base}/mcp`, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    })
  ).text();
  let id = 1;
  return async (url) => {
    const res = await fetch(`${base}/mcp`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: id++,
        method: "tools/call",
        params: { name: "navigate", arguments: { url } },
      }),
    });
    const text = await res.text();
    const got = reply(text);
    if (res.status !== 200 || !got?.result || got.result.isError)
      throw new Error(`MCP navigate: ${res.status} ${text.slice(0, 200)}`);
  };
}

interface Load {
  calls: number;
  seconds: number;
  cpu: number;
}

/** Every agent calls until `calls` calls were made between them; the server's CPU and the wall time. */
async function drive(server: ServerProcess, agents: Caller[], calls: number): Promise<Load> {
  let left = calls;
  let n = 0;
  const cpu0 = cpuSeconds(server.pid);
  const t0 = performance.now();
  await Promise.all(
    agents.map(async (call, a) => {
      while (left > 0) {
        left--;
        await call(`${PAGE}?a=${a}&n=${n++}`);
      }
    }),
  );
  return { calls, seconds: (performance.now() - t0) / 1000, cpu: cpuSeconds(server.pid) - cpu0 };
}

const add = (a: Load, b: Load): Load => ({
  calls: a.calls + b.calls,
  seconds: a.seconds + b.seconds,
  cpu: a.cpu + b.cpu,
});

export async function main(): Promise<void> {
  const grid = startWireGrid();
  const server = await startProcess({
    AUTH_TOKEN: TOKEN,
    GRID_URL: grid.url,
    MCP_MAX_SESSIONS: "1000",
  });
  try {
    for (const n of LOADS) {
      const names = Array.from({ length: n }, (_, i) => `load${n}-a${i}`);
      const rest = names.map((w) => restAgent(server.base, w));
      // Each workspace's browser opens before the clock starts, and each MCP session too.
      await Promise.all(rest.map((call) => call(PAGE)));
      const mcp = await Promise.all(names.map((w) => mcpAgent(server.base, w)));
      await drive(server, rest, n * 2);
      await drive(server, mcp, n * 2);
      let r: Load = { calls: 0, seconds: 0, cpu: 0 };
      let m: Load = { calls: 0, seconds: 0, cpu: 0 };
      // Alternated, so a machine that slows down mid-run slows both sides alike.
      for (let i = 0; i < ROUNDS; i++) {
        r = add(r, await drive(server, rest, CALLS / ROUNDS));
        m = add(m, await drive(server, mcp, CALLS / ROUNDS));
      }
      const rows: Row[] = [
        {
          what: `server CPU per call, MCP 2025-11-25 (${n} agents)`,
          value: (m.cpu / m.calls) * 1000,
          unit: "ms",
          ref: (r.cpu / r.calls) * 1000,
          refName: "REST, same load",
          target: "≤ 1.3×",
        },
        {
          what: `calls per second, MCP 2025-11-25 (${n} agents)`,
          value: m.calls / m.seconds,
          unit: "/s",
          ref: r.calls / r.seconds,
          refName: "REST, same load",
        },
      ];
      printTable(`MCP beside REST on a fake Grid, ${n} agents at once, ${CALLS} calls each side`, rows);
      await Promise.all(
        names.map((w) =>
          fetch(`${server.base}/browser`, {
            method: "DELETE",
            headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": w },
          }).then((res) => res.text()),
        ),
      );
    }
  } finally {
    await server.stop();
    grid.stop();
  }
}

if (import.meta.main) {
  await main();
  process.exit(0);
}
