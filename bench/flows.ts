// A 10-step flow run server-side (one run_flow call) beside the same 10 calls made one by one over
// REST and over MCP, against the same browser and fixture pages, in the same run. On loopback a
// call costs the server about a millisecond, so the steps' own WebDriver work dominates both; the
// last rows put a 20 ms round trip between the agent and the server (a delay in front of the app),
// which is what a flow saves nine times over.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { stringify } from "yaml";
import { html, serveFixture } from "../test/support/fixtures.ts";
import { median, printTable, type Row, timed } from "./report.ts";
import { benchServer, TOKEN } from "./server.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const W = "bench-flows";
const RTT_MS = 20;

export async function main(): Promise<void> {
  const site = serveFixture({
    "/a": () =>
      html(
        `<title>A</title><h1>A</h1><label>Name <input id=name></label>
         <button id=go onclick="document.querySelector('#out').textContent='clicked'">Go</button>
         <p id=out></p><label><input type=checkbox id=ok> OK</label>`,
      ),
    "/b": () => html("<title>B</title><h1>B</h1><label>Query <input id=q></label>"),
  });
  const steps: Array<{ tool: string; args: Record<string, unknown> }> = [
    { tool: "navigate", args: { url: site.url("/a") } },
    { tool: "write", args: { selector: { css: "#name" }, text: "Ada" } },
    { tool: "interact", args: { action: "click", selector: { css: "#go" } } },
    { tool: "assert", args: { selector: { text: "clicked" } } },
    { tool: "extract", args: { selector: { css: "#out" } } },
    { tool: "interact", args: { action: "check", selector: { css: "#ok" } } },
    { tool: "navigate", args: { url: site.url("/b") } },
    { tool: "extract", args: { selector: { css: "h1" } } },
    { tool: "write", args: { selector: { css: "#q" }, text: "x" } },
    { tool: "extract", args: { selector: { css: "#q" }, get: "value" } },
  ];
  const dataDir = mkdtempSync(join(tmpdir(), "sf-bench-flows-"));
  const { app, server, base } = await benchServer((config) => {
    config.data.dir = dataDir;
  });
  // The same app behind half a round trip each way.
  const far = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 255,
    fetch: async (request) => {
      await Bun.sleep(RTT_MS / 2);
      const res = await app.fetch(request);
      await Bun.sleep(RTT_MS / 2);
      return res;
    },
  });
  const farBase = `http://127.0.0.1:${far.port}`;
  const headers = { authorization: `Bearer ${TOKEN}`, "x-workspace": W, "content-type": "application/json" };
  const rest = async (method: string, path: string, body: unknown, at = base) => {
    const res = await fetch(`${at}${path}`, { method, headers, body: JSON.stringify(body) });
    const out = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(out)}`);
    return out;
  };
  const restPath = (tool: string, args: Record<string, unknown>) => {
    const paths: Record<string, string> = {
      navigate: "/browser/navigate",
      write: "/browser/write",
      assert: "/browser/assert",
      extract: "/browser/extract",
    };
    if (tool === "interact") {
      const { action, ...rest } = args;
      return { path: `/browser/interact/${action}`, body: rest };
    }
    return { path: paths[tool] as string, body: args };
  };
  const mcp = new Client({ name: "bench", version: "1" });
  try {
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp?workspace=${W}`), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    await rest("PUT", "/flows/ten", { description: "ten steps", steps });
    // Opens the workspace's browser; the shared Grid may be full for a while.
    for (let tries = 0; ; tries++) {
      try {
        await rest("POST", "/browser/navigate", { url: site.url("/b") });
        break;
      } catch (err) {
        if (tries >= 60 || !String(err).includes(": 503 ")) throw err;
        await Bun.sleep(5000);
      }
    }

    const oneByOneRest = async (at = base) => {
      for (const s of steps) {
        const { path, body } = restPath(s.tool, s.args);
        await rest("POST", path, body, at);
      }
    };
    const oneByOneMcp = async () => {
      for (const s of steps) {
        const out = await mcp.callTool({ name: s.tool, arguments: s.args });
        if (out.isError) throw new Error(`${s.tool}: ${JSON.stringify(out.content)}`);
      }
    };
    const flowRest = async (at = base) => {
      const report = await rest("POST", "/flows/ten/run", {}, at);
      if (report.status !== "ok") throw new Error(`run_flow: ${JSON.stringify(report)}`);
    };
    const flowMcp = async () => {
      const out = await mcp.callTool({ name: "run_flow", arguments: { name: "ten" } });
      if (out.isError || (out.structuredContent as { status?: string })?.status !== "ok") {
        throw new Error(`run_flow over MCP: ${JSON.stringify(out.content)}`);
      }
    };
    // One warm-up of each, then interleaved rounds so drift hits every way alike.
    for (const f of [oneByOneRest, oneByOneMcp, flowRest, flowMcp]) await f();
    const samples = {
      rest: [] as number[],
      mcp: [] as number[],
      flowRest: [] as number[],
      flowMcp: [] as number[],
      farRest: [] as number[],
      farFlow: [] as number[],
    };
    for (let i = 0; i < ROUNDS; i++) {
      samples.rest.push(await timed(() => oneByOneRest()));
      samples.mcp.push(await timed(oneByOneMcp));
      samples.flowRest.push(await timed(() => flowRest()));
      samples.flowMcp.push(await timed(flowMcp));
      samples.farRest.push(await timed(() => oneByOneRest(farBase)));
      samples.farFlow.push(await timed(() => flowRest(farBase)));
    }
    const restRef = median(samples.rest);
    const mcpRef = median(samples.mcp);
    const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v)).length;
    const report = await rest("POST", "/flows/ten/run", {});
    const singles: unknown[] = [];
    for (const s of steps) {
      const { path, body } = restPath(s.tool, s.args);
      singles.push(await rest("POST", path, body));
    }
    const rows: Row[] = [
      { what: "10 calls one by one over REST", value: restRef, unit: "ms", ref: restRef, refName: "itself" },
      {
        what: "10 calls one by one over MCP",
        value: mcpRef,
        unit: "ms",
        ref: restRef,
        refName: "10 REST calls",
      },
      {
        what: "the 10-step flow, run_flow over REST",
        value: median(samples.flowRest),
        unit: "ms",
        ref: restRef,
        refName: "10 REST calls",
        target: "< 1×",
      },
      {
        what: "the 10-step flow, run_flow over MCP",
        value: median(samples.flowMcp),
        unit: "ms",
        ref: mcpRef,
        refName: "10 MCP calls",
        target: "< 1×",
      },
      {
        what: `10 calls one by one over REST, ${RTT_MS} ms away`,
        value: median(samples.farRest),
        unit: "ms",
        ref: restRef,
        refName: "10 REST calls on loopback",
      },
      {
        what: `the 10-step flow over REST, ${RTT_MS} ms away`,
        value: median(samples.farFlow),
        unit: "ms",
        ref: median(samples.farRest),
        refName: `10 REST calls ${RTT_MS} ms away`,
        target: "< 1×",
      },
      {
        what: "bytes the agent reads: the run report",
        value: bytes(report),
        unit: "B",
        ref: singles.reduce<number>((n, r) => n + bytes(r), 0),
        refName: "the 10 results",
      },
      {
        what: "bytes the agent sends: run_flow's arguments",
        value: bytes({ name: "ten" }),
        unit: "B",
        ref: steps.reduce((n, s) => n + bytes(s.args), 0),
        refName: "the 10 calls' arguments",
      },
    ];
    printTable(`flows (median of ${ROUNDS} rounds; flow YAML ${stringify({ steps }).length} B)`, rows);
  } finally {
    await mcp.close().catch(() => undefined);
    await fetch(`${base}/browser`, { method: "DELETE", headers }).catch(() => undefined);
    await server.stop(true);
    await far.stop(true);
    await app.close();
    site.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) await main();
