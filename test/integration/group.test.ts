// A group of servers as operators run one: separate server processes on one Redis, and on one
// SQLite file, against the real Grid (through a ledger proxy that counts the browsers they open).
// Concurrent opens leave exactly one browser; concurrent calls on one workspace never interleave; a
// server killed by SIGKILL mid-call is recovered from within session.lease; an MCP client behind a
// round-robin proxy (no sticky sessions) initializes, lists and calls tools, reads resources, gets
// its progress and cancels a run that another server is doing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { openStore } from "../../src/store/index.ts";
import type { RecordStore } from "../../src/store/types.ts";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { type GridLedger, startGridLedger } from "../support/grid-ledger.ts";
import { type ServerProcess, startProcess } from "../support/process.ts";
import { type PrivateRedis, startRedis } from "../support/redis-server.ts";
import { type RoundRobin, startRoundRobin } from "../support/round-robin.ts";
import { TOKEN } from "../support/server.ts";

const LEASE = 3;
const GROUP_KEY = "group-test-store-key-0123456789abcdef";
const site = serveFixture({
  "/": () => html("<title>Home</title><h1>home</h1>"),
  "/other": () => html("<title>Other</title><h1>other</h1>"),
});

async function call(
  base: string,
  method: string,
  path: string,
  workspace: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "x-workspace": workspace,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}

const script = (base: string, workspace: string, source: string, args: unknown[] = []) =>
  call(base, "POST", "/browser/script", workspace, { script: source, args });

for (const kind of ["redis", "sqlite"] as const) {
  describe(`two servers on one ${kind === "redis" ? "Redis" : "SQLite file"}`, () => {
    let redis: PrivateRedis | null = null;
    let ledger: GridLedger;
    let dataDir: string;
    let env: Record<string, string>;
    let a: ServerProcess;
    let b: ServerProcess;
    let store: RecordStore;
    const extra: ServerProcess[] = [];

    beforeAll(async () => {
      ledger = startGridLedger(testGridUrl);
      dataDir = mkdtempSync(join(tmpdir(), `sf-group-${kind}-`));
      if (kind === "redis") redis = await startRedis();
      env = {
        AUTH_TOKEN: TOKEN,
        GRID_URL: ledger.url,
        DATA_DIR: dataDir,
        SESSION_LEASE: String(LEASE),
        GRID_OPEN_TIMEOUT: "120",
        ...(redis ? { STORE_URL: redis.url, STORE_KEY: GROUP_KEY } : {}),
      };
      [a, b] = await Promise.all([startProcess(env), startProcess(env)]);
      store = await openStore({
        dataDir,
        storeUrl: redis?.url ?? null,
        ttl: 86_400,
        key: redis ? GROUP_KEY : null,
      });
    });

    afterAll(async () => {
      await ledger.endAll();
      await Promise.all([a, b, ...extra].map((p) => p.stop().catch(() => undefined)));
      await store.close();
      ledger.stop();
      await redis?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test("concurrent opens on both servers leave exactly one browser: the one the record names", async () => {
      const W = `open-${kind}`;
      const from = ledger.opened.length;
      const [one, two] = await Promise.all([
        call(a.base, "POST", "/browser", W, { url: site.url("/") }),
        call(b.base, "POST", "/browser", W, { url: site.url("/other") }),
      ]);
      expect(one.status).toBe(200);
      expect(two.status).toBe(200);
      const mine = ledger.opened.slice(from);
      // Each open replaced the browser before it (the lease put them in line): two opened, one lives.
      expect(mine).toHaveLength(2);
      const record = await store.get(W);
      const alive = (await ledger.alive()).filter((id) => mine.includes(id));
      expect(alive).toEqual([record!.session_id]);
      expect((await call(b.base, "DELETE", "/browser", W)).body).toEqual({ ended: true });
      expect((await ledger.alive()).filter((id) => mine.includes(id))).toEqual([]);
    }, 120_000);

    test("concurrent calls on one workspace through both servers never interleave", async () => {
      const W = `order-${kind}`;
      expect((await call(a.base, "POST", "/browser/navigate", W, { url: site.url("/") })).status).toBe(200);
      const step =
        "async (n) => { (window.steps ??= []).push('start ' + n); await new Promise((r) => setTimeout(r, 120)); window.steps.push('end ' + n); return n; }";
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, n) => script(n % 2 ? b.base : a.base, W, step, [n])),
      );
      for (const r of results) expect(r.status).toBe(200);
      const steps = (await script(a.base, W, "window.steps")).body.result as string[];
      expect(steps).toHaveLength(16);
      // Each call ran whole before the next began: start n, end n, in pairs.
      for (let i = 0; i < 16; i += 2) {
        expect(steps[i]).toStartWith("start ");
        expect(steps[i + 1]).toBe(`end ${steps[i]!.slice("start ".length)}`);
      }
      expect(new Set(steps.filter((s) => s.startsWith("start "))).size).toBe(8);
      await call(a.base, "DELETE", "/browser", W);
    }, 120_000);

    test("a server killed by SIGKILL mid-call holds its workspace no longer than session.lease; the next call on another server goes on", async () => {
      const W = `killed-${kind}`;
      const victim = await startProcess(env);
      extra.push(victim);
      expect((await call(victim.base, "POST", "/browser/navigate", W, { url: site.url("/") })).status).toBe(
        200,
      );
      const from = ledger.opened.length;
      // A call that runs for a minute; killed a second in, while it holds the lease.
      void script(
        victim.base,
        W,
        "async () => { await new Promise((r) => setTimeout(r, 60000)); return 1; }",
      ).catch(() => undefined);
      await Bun.sleep(1000);
      await victim.kill("SIGKILL");
      const began = performance.now();
      const next = await call(b.base, "POST", "/browser/navigate", W, { url: site.url("/other") });
      const waited = (performance.now() - began) / 1000;
      expect(next.status).toBe(200);
      expect(next.body).toMatchObject({ url: site.url("/other"), title: "Other" });
      // It waited for the dead server's lease (renewed every second until the kill), no longer
      // than the lease's time.
      expect(waited).toBeGreaterThan(1);
      expect(waited).toBeLessThan(LEASE + 4);
      // On the browser the dead server left: nothing new opened.
      expect(ledger.opened.length).toBe(from);
      await call(b.base, "DELETE", "/browser", W);
    }, 120_000);

    test("an MCP client behind a round-robin proxy: initialize, tools, resources, progress, and a cancel that reaches the other server", async () => {
      const W = `mcp-${kind}`;
      const proxy: RoundRobin = startRoundRobin([a.base, b.base]);
      const client = new Client({ name: "group-test", version: "1" });
      const transport = new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp?workspace=${W}`), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      });
      try {
        await client.connect(transport);
        const tools = await client.listTools();
        expect(tools.tools.map((t) => t.name)).toContain("navigate");
        const went = await client.callTool({ name: "navigate", arguments: { url: site.url("/other") } });
        expect(went.isError).toBeFalsy();
        expect(went.structuredContent).toMatchObject({ url: site.url("/other"), title: "Other" });
        const listed = await client.listResources();
        expect(listed.resources.map((r) => r.uri)).toContain("workspace://current");
        const current = await client.readResource({ uri: "workspace://current" });
        expect(JSON.parse((current.contents[0] as { text: string }).text)).toMatchObject({
          live: true,
          url: site.url("/other"),
          title: "Other",
        });

        // Progress: a three-step flow reports each step on the stream of the request that asked.
        const yaml = `steps:\n  - tool: navigate\n    args: {url: "${site.url("/")}"}\n  - tool: navigate\n    args: {url: "${site.url("/other")}"}\n  - tool: navigate\n    args: {url: "${site.url("/")}"}\n`;
        const put = await fetch(`${a.base}/flows/tour`, {
          method: "PUT",
          headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": W, "content-type": "application/yaml" },
          body: yaml,
        });
        expect(put.status).toBe(200);
        const progress: string[] = [];
        const run = await client.callTool({ name: "run_flow", arguments: { name: "tour" } }, undefined, {
          onprogress: (p) => progress.push(`${p.progress}/${p.total} ${p.message}`),
        });
        expect(run.structuredContent).toMatchObject({ status: "ok", title: "Home" });
        expect(progress).toEqual([
          "1/3 step 1/3 navigate: ok",
          "2/3 step 2/3 navigate: ok",
          "3/3 step 3/3 navigate: ok",
        ]);

        // A cancel: a run of ten one-second steps, cancelled a second in. The cancel goes to the
        // server after the one running it (round robin), which leaves it in the store.
        const slow = `steps:\n${Array.from({ length: 10 }, () => `  - tool: execute_script\n    args: {script: "async () => { (window.ran ??= []).push(1); await new Promise((r) => setTimeout(r, 1000)); }"}\n`).join("")}`;
        await fetch(`${a.base}/flows/slow`, {
          method: "PUT",
          headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": W, "content-type": "application/yaml" },
          body: slow,
        });
        const stop = new AbortController();
        const cancelled = client
          .callTool({ name: "run_flow", arguments: { name: "slow" } }, undefined, { signal: stop.signal })
          .catch((e: Error) => e);
        await Bun.sleep(1200);
        stop.abort();
        expect(await cancelled).toBeInstanceOf(Error);
        // The next call waits for the cancelled run to give the workspace back, then reads how far it got.
        const ran = await script(a.base, W, "window.ran.length");
        expect(ran.status).toBe(200);
        expect(ran.body.result).toBeLessThan(6);
        // Both servers served this session.
        expect(proxy.sent.every((n) => n > 2)).toBe(true);
      } finally {
        await client.close().catch(() => undefined);
        proxy.stop();
        await call(a.base, "DELETE", "/browser", W);
      }
    }, 120_000);

    test("an MCP session any server began is served, and closed, by the other; a closed one is a 404 on both", async () => {
      const W = `mcp-raw-${kind}`;
      const headers = {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      };
      const init = await fetch(`${a.base}/mcp?workspace=${W}`, {
        method: "POST",
        headers,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        }),
      });
      expect(init.status).toBe(200);
      await init.text();
      const session = init.headers.get("mcp-session-id") as string;
      const withSession = { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" };
      // No workspace on this request: the session says whose it is.
      const read = await fetch(`${b.base}/mcp`, {
        method: "POST",
        headers: withSession,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "resources/read",
          params: { uri: "workspace://current" },
        }),
      });
      expect(read.status).toBe(200);
      const text = await read.text();
      const reply = JSON.parse(/data: (.*)/.exec(text)?.[1] ?? text);
      expect(JSON.parse(reply.result.contents[0].text)).toMatchObject({ live: false });
      // The session's event stream opens on either server; a subscribe taken by the other reaches it.
      const stop = new AbortController();
      const listen = await fetch(`${a.base}/mcp`, {
        headers: { ...withSession, accept: "text/event-stream" },
        signal: stop.signal,
      });
      expect(listen.status).toBe(200);
      expect(listen.headers.get("content-type")).toContain("text/event-stream");
      const subscribed = await fetch(`${b.base}/mcp`, {
        method: "POST",
        headers: withSession,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 3,
          method: "resources/subscribe",
          params: { uri: "workspace://flows" },
        }),
      });
      expect(subscribed.status).toBe(200);
      expect(await subscribed.text()).toContain('"result":{}');
      // A level chosen through b is the session's: the call through a sends its line.
      const level = await fetch(`${b.base}/mcp`, {
        method: "POST",
        headers: withSession,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 5,
          method: "logging/setLevel",
          params: { level: "info" },
        }),
      });
      expect(await level.text()).toContain('"result":{}');
      // Once a's stream has seen the mark (it looks every 2 s), a flow saved through a reaches it.
      await Bun.sleep(2_500);
      const saved = await fetch(`${a.base}/mcp`, {
        method: "POST",
        headers: withSession,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 4,
          method: "tools/call",
          params: {
            name: "save_flow",
            arguments: {
              name: "seen",
              yaml: "steps:\n  - tool: navigate\n    args: {url: 'http://app.example.test/'}\n",
            },
          },
        }),
      });
      const savedText = await saved.text();
      expect(savedText).toContain('"replaced"');
      expect(savedText).toMatch(/"data":"save_flow: done in \d+ ms"/);
      const reader = listen.body!.pipeThrough(new TextDecoderStream()).getReader();
      let heard = "";
      const until = Date.now() + 10_000;
      while (!heard.includes("notifications/resources/updated") && Date.now() < until) {
        const next = await Promise.race([reader.read(), Bun.sleep(500).then(() => null)]);
        if (next?.value) heard += next.value;
        if (next?.done) break;
      }
      expect(heard).toContain('"params":{"uri":"workspace://flows"}');
      const closed = await fetch(`${b.base}/mcp`, { method: "DELETE", headers: withSession });
      expect(closed.status).toBe(200);
      stop.abort();
      for (const base of [a.base, b.base]) {
        const gone = await fetch(`${base}/mcp`, {
          method: "POST",
          headers: withSession,
          body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }),
        });
        expect(gone.status).toBe(404);
        expect(((await gone.json()) as { error: string }).error).toBe(
          "no such MCP session: it was closed, or unused for longer than mcp.session_idle, or closed to make room for a new one; initialize a new one",
        );
      }
    });
  });
}

afterAll(() => site.stop());
