// MCP 2025-11-25 and 2026-07-28 side by side on one /mcp, each client served the version it asks
// for: the SDK's v1 client opens a session; its v2 client pinned to 2026-07-28 sends no initialize,
// gets no session, and its calls carry their version in their _meta. Both drive the same workspace
// on a Grid on the wire (test/support/wire-grid.ts), so no browser is needed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mcpInUse } from "../support/metrics.ts";
import { startServer, type TestServer, TOKEN } from "../support/server.ts";
import { startWireGrid, type WireGrid } from "../support/wire-grid.ts";

const W = "versions";
const PAGE = "http://app.example.test/";
let grid: WireGrid;
let server: TestServer;
const seen: Array<{ method: string; session: string | null; version: string | null; body: any }> = [];

beforeAll(async () => {
  grid = startWireGrid({ titles: { [PAGE]: "App" } });
  server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.grid.url = grid.url;
    },
  });
});

afterAll(async () => {
  await server.call("DELETE", "/browser", undefined, W);
  await server.close();
  grid.stop();
});

/** A fetch that notes what each client sent before sending it. */
const noting: typeof fetch = Object.assign(
  async (input: RequestInfo | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    if (init?.method === "POST" && typeof init.body === "string") {
      const body = JSON.parse(init.body);
      seen.push({
        method: body.method ?? "(response)",
        session: headers.get("mcp-session-id"),
        version: headers.get("mcp-protocol-version"),
        body,
      });
    }
    return fetch(input, init);
  },
  { preconnect: fetch.preconnect },
);

const url = () => new URL(`${server.url}/mcp?workspace=${W}`);
const auth = { headers: { authorization: `Bearer ${TOKEN}` } };

test("a 2025-11-25 client gets a session; a 2026-07-28 client none, its version in every request", async () => {
  const legacy = new Client({ name: "legacy", version: "1" });
  await legacy.connect(new StreamableHTTPClientTransport(url(), { requestInit: auth, fetch: noting }));
  const modern = new ModernClient(
    { name: "modern", version: "1" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await modern.connect(new ModernTransport(url(), { requestInit: auth, fetch: noting }));
  try {
    expect(legacy.getServerVersion()?.name).toBe("selenium-flow");
    expect(modern.getProtocolEra()).toBe("modern");
    // Both see the same tools, and act on the same workspace.
    const [old, now] = [await legacy.listTools(), await modern.listTools()];
    expect(now.tools.map((t) => t.name)).toEqual(old.tools.map((t) => t.name));
    const went = await modern.callTool({ name: "navigate", arguments: { url: PAGE } });
    expect(went.isError).toBeFalsy();
    expect(went.structuredContent).toMatchObject({ url: PAGE, title: "App" });
    const here = await legacy.readResource({ uri: "workspace://current" });
    expect(JSON.parse((here.contents[0] as { text: string }).text)).toMatchObject({ live: true, url: PAGE });
    const there = await modern.readResource({ uri: "workspace://current" });
    expect(JSON.parse((there.contents[0] as { text: string }).text)).toMatchObject({ live: true, url: PAGE });
  } finally {
    await legacy.close();
    await modern.close();
  }
  const oldOnes = seen.filter(
    (s) => s.body.params?._meta?.["io.modelcontextprotocol/protocolVersion"] === undefined,
  );
  const newOnes = seen.filter(
    (s) => s.body.params?._meta?.["io.modelcontextprotocol/protocolVersion"] === "2026-07-28",
  );
  expect(oldOnes.map((s) => s.method)).toContain("initialize");
  expect(oldOnes.filter((s) => s.method !== "initialize").every((s) => s.session !== null)).toBe(true);
  expect(newOnes.map((s) => s.method)).toEqual(
    expect.arrayContaining(["tools/list", "tools/call", "resources/read"]),
  );
  expect(newOnes.map((s) => s.method)).not.toContain("initialize");
  expect(newOnes.every((s) => s.session === null && s.version === "2026-07-28")).toBe(true);
});

async function rpc(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/mcp?workspace=${W}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const meta = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const modernHeaders = (method: string, name?: string) => ({
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": method,
  ...(name ? { "mcp-name": name } : {}),
});

test("2026-07-28 answers: discover, cache hints, resultType, removed methods 404, an unknown version -32022", async () => {
  const found = await rpc(
    { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } },
    modernHeaders("server/discover"),
  );
  expect(found.status).toBe(200);
  expect(found.body.result).toMatchObject({
    resultType: "complete",
    supportedVersions: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"],
    capabilities: { tools: {}, prompts: {} },
    _meta: { "io.modelcontextprotocol/serverInfo": { name: "selenium-flow" } },
    ttlMs: 3_600_000,
    cacheScope: "public",
  });
  const listed = await rpc(
    { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: meta } },
    modernHeaders("tools/list"),
  );
  expect(listed.body.result).toMatchObject({
    resultType: "complete",
    ttlMs: 3_600_000,
    cacheScope: "public",
  });
  const read = await rpc(
    { jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri: "workspace://current", _meta: meta } },
    modernHeaders("resources/read", "workspace://current"),
  );
  expect(read.body.result).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private" });
  for (const method of ["initialize", "ping", "logging/setLevel", "resources/subscribe"]) {
    const gone = await rpc({ jsonrpc: "2.0", id: 4, method, params: { _meta: meta } }, modernHeaders(method));
    expect([gone.status, gone.body.error.code]).toEqual([404, -32601]);
  }
  const future = await rpc(
    {
      jsonrpc: "2.0",
      id: 5,
      method: "tools/list",
      params: { _meta: { ...meta, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
    },
    { ...modernHeaders("tools/list"), "mcp-protocol-version": "2099-01-01" },
  );
  expect(future.status).toBe(400);
  expect(future.body.error).toMatchObject({ code: -32022, data: { requested: "2099-01-01" } });
  const noName = await rpc(
    {
      jsonrpc: "2.0",
      id: 6,
      method: "tools/call",
      params: { name: "navigate", arguments: { url: PAGE }, _meta: meta },
    },
    modernHeaders("tools/call"),
  );
  expect([noName.status, noName.body.error.code]).toEqual([400, -32020]);
  const missing = await rpc(
    { jsonrpc: "2.0", id: 7, method: "resources/read", params: { uri: "workspace://nope", _meta: meta } },
    modernHeaders("resources/read", "workspace://nope"),
  );
  expect(missing.body.error).toMatchObject({ code: -32602, data: { uri: "workspace://nope" } });
});

test("2026-07-28 log lines only for a request whose _meta asks for a level", async () => {
  const call = (id: number, level?: string) =>
    fetch(`${server.url}/mcp?workspace=${W}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKEN}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...modernHeaders("tools/call", "navigate"),
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          name: "navigate",
          arguments: { url: PAGE },
          _meta: { ...meta, ...(level ? { "io.modelcontextprotocol/logLevel": level } : {}) },
        },
      }),
    }).then((r) => r.text());
  const quiet = await call(1);
  expect(quiet.startsWith("{")).toBe(true);
  expect(JSON.parse(quiet).result.resultType).toBe("complete");
  const told = await call(2, "info");
  const messages = [...told.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1] as string));
  expect(
    messages.filter((m) => m.method === "notifications/message").map((m) => m.params.data),
  ).toContainEqual(expect.stringMatching(/^navigate: done in \d+ ms$/));
  expect(messages.at(-1).result.resultType).toBe("complete");
});

test("2026-07-28 subscriptions/listen: acknowledged first, then the workspace's updates tagged with its id", async () => {
  const abort = new AbortController();
  const res = await fetch(`${server.url}/mcp?workspace=${W}`, {
    method: "POST",
    signal: abort.signal,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...modernHeaders("subscriptions/listen"),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: "sub-1",
      method: "subscriptions/listen",
      params: {
        _meta: meta,
        notifications: {
          toolsListChanged: true,
          resourceSubscriptions: ["workspace://current", "workspace://nope"],
        },
      },
    }),
  });
  expect(res.headers.get("content-type")).toBe("text/event-stream");
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  const next = async (): Promise<any> => {
    for (;;) {
      const m = /^data: (.*)$/m.exec(text);
      if (m) {
        text = text.slice((m.index ?? 0) + m[0].length);
        return JSON.parse(m[1] as string);
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended");
      text += decoder.decode(value);
    }
  };
  const ack = await next();
  expect(ack).toEqual({
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: {
      _meta: { "io.modelcontextprotocol/subscriptionId": "sub-1" },
      notifications: { resourceSubscriptions: ["workspace://current"] },
    },
  });
  await Bun.sleep(100);
  expect((await server.call("POST", "/browser/navigate", { url: `${PAGE}?moved` }, W)).status).toBe(200);
  expect(await next()).toEqual({
    jsonrpc: "2.0",
    method: "notifications/resources/updated",
    params: { uri: "workspace://current", _meta: { "io.modelcontextprotocol/subscriptionId": "sub-1" } },
  });
  // The listen is a stream this server holds open (GET /metrics counts it), until the client goes.
  expect((await mcpInUse(server.url, TOKEN)).streams).toBeGreaterThanOrEqual(1);
  abort.abort();
  await reader.cancel().catch(() => undefined);
  for (let i = 0; i < 40 && (await mcpInUse(server.url, TOKEN)).streams > 0; i++) await Bun.sleep(25);
  expect((await mcpInUse(server.url, TOKEN)).streams).toBe(0);
});

test("a client that lets the SDK choose (auto) probes with server/discover and speaks 2026-07-28", async () => {
  const auto = new ModernClient({ name: "auto", version: "1" }, { versionNegotiation: { mode: "auto" } });
  await auto.connect(new ModernTransport(url(), { requestInit: auth }));
  try {
    expect(auto.getProtocolEra()).toBe("modern");
    expect((await auto.listPrompts()).prompts.map((p) => p.name)).toEqual(["sign_in", "make_flow"]);
  } finally {
    await auto.close();
  }
});
