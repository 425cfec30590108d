// MCP over HTTP, its 2025-era sessions and its JSON-RPC: no SDK server is built for a request; a
// full session table makes room by closing the least recently used session no call holds (the
// SDK's client leaves without DELETE); an abandoned session costs the server nothing once idle;
// params of the wrong shape are invalid params naming the field; batches are the spec version's.
// No Grid: nothing here opens a browser.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { mcpInUse } from "../support/metrics.ts";
import { startServer, type TestServer, TOKEN } from "../support/server.ts";

const MAX = 4;
let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.mcp.max_sessions = MAX;
    },
  });
});

afterAll(async () => {
  await server.close();
});

const HEADERS = {
  authorization: `Bearer ${TOKEN}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

async function post(body: unknown, session?: string, version = "2025-11-25", workspace = "sessions") {
  const headers: Record<string, string> = { ...HEADERS, "x-workspace": workspace };
  if (session) {
    headers["mcp-session-id"] = session;
    headers["mcp-protocol-version"] = version;
  }
  const res = await fetch(`${server.url}/mcp`, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await res.text();
  const events = text.startsWith("event:")
    ? [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1] as string))
    : null;
  return { res, status: res.status, body: (events ? events.at(-1) : text ? JSON.parse(text) : null) as any };
}

async function initialize(version = "2025-11-25", workspace = "sessions"): Promise<string> {
  const init = await post(
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "t", version: "1" } },
    },
    undefined,
    version,
    workspace,
  );
  expect(init.status).toBe(200);
  expect(init.body.result.protocolVersion).toBe(version);
  return init.res.headers.get("mcp-session-id") as string;
}

const call = (id: number, method: string, params?: unknown) => ({ jsonrpc: "2.0", id, method, params });

async function closeAll(): Promise<void> {
  const rows = server.app.services.store as unknown as { db?: { run(sql: string): void } };
  rows.db?.run("DELETE FROM mcp_sessions");
}

describe("one exchange, no SDK server", () => {
  test("40 requests over HTTP build no SDK server and connect none", async () => {
    let connects = 0;
    const connect = Server.prototype.connect;
    Server.prototype.connect = function (this: Server, ...args: Parameters<Server["connect"]>) {
      connects++;
      return connect.apply(this, args);
    };
    try {
      const session = await initialize();
      for (let i = 1; i <= 20; i++) {
        expect((await post(call(i, "tools/list"), session)).body.result.tools.length).toBeGreaterThan(10);
        expect((await post(call(100 + i, "ping"), session)).body.result).toEqual({});
      }
    } finally {
      Server.prototype.connect = connect;
      await closeAll();
    }
    expect(connects).toBe(0);
  });
});

describe("invalid params are -32602 naming the field", () => {
  test("tools/call, resources/read and logging/setLevel with params of the wrong shape", async () => {
    const session = await initialize();
    const cases: Array<[unknown, string, string]> = [
      [
        call(1, "tools/call", { name: "navigate", arguments: "x" }),
        'invalid params: field "arguments" must be an object',
        "params.arguments",
      ],
      [
        call(2, "tools/call", { arguments: {} }),
        'invalid params: missing field "name": it is required',
        "params.name",
      ],
      [
        call(3, "tools/call", { name: "nope", arguments: {} }),
        "no tool nope: tools/list names them",
        "params.name",
      ],
      [call(4, "resources/read", {}), 'invalid params: missing field "uri": it is required', "params.uri"],
      [
        call(5, "logging/setLevel", { level: 5 }),
        'invalid params: field "level" must be one of "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"',
        "params.level",
      ],
    ];
    for (const [body, message, field] of cases) {
      const got = await post(body, session);
      expect(got.status).toBe(200);
      expect(got.body.error).toEqual({ code: -32602, message, data: { field } });
    }
    // An argument the tool refuses is the tool's own error, naming it, for the model to correct.
    const bad = await post(call(6, "tools/call", { name: "navigate", arguments: { url: 5 } }), session);
    expect(bad.body.result).toEqual({
      content: [{ type: "text", text: 'field "url" must be a string' }],
      isError: true,
    });
    await closeAll();
  });
});

describe("batches follow the spec version in use", () => {
  test("2025-11-25 and 2025-06-18 take one message per POST: a batch, empty or not, is -32600", async () => {
    for (const version of ["2025-11-25", "2025-06-18"]) {
      const session = await initialize(version);
      for (const batch of [[], [call(1, "ping"), call(2, "ping")]]) {
        const got = await post(batch, session, version);
        expect(got.status).toBe(400);
        expect(got.body.error.code).toBe(-32600);
        expect(got.body.error.message).toBe(
          `Invalid Request: MCP ${version} takes one JSON-RPC message per POST (batches were removed in 2025-06-18)`,
        );
      }
    }
    await closeAll();
  });

  test("2025-03-26 has batches: answered together, an empty one is -32600, more than 16 too", async () => {
    const session = await initialize("2025-03-26");
    const both = await post([call(1, "ping"), call(2, "tools/list")], session, "2025-03-26");
    expect(both.status).toBe(200);
    expect(both.body.map((m: { id: number }) => m.id)).toEqual([1, 2]);
    expect(both.body[1].result.tools.length).toBeGreaterThan(10);
    const empty = await post([], session, "2025-03-26");
    expect([empty.status, empty.body.error]).toEqual([
      400,
      { code: -32600, message: "Invalid Request: an empty batch" },
    ]);
    const many = await post(
      Array.from({ length: 17 }, (_, i) => call(i, "ping")),
      session,
      "2025-03-26",
    );
    expect([many.status, many.body.error.message]).toEqual([
      400,
      "Invalid Request: a batch holds at most 16 messages",
    ]);
    const notes = await post(
      [{ jsonrpc: "2.0", method: "notifications/initialized" }],
      session,
      "2025-03-26",
    );
    expect(notes.status).toBe(202);
    await closeAll();
  });
});

describe("a full session table", () => {
  test("closes the least recently used session nothing holds; a call in flight holds its own", async () => {
    const ids: string[] = [];
    for (let i = 0; i < MAX; i++) ids.push(await initialize("2025-11-25", `full-${i}`));
    // The first waits on a person (no browser): in flight, it holds its session. The second is used.
    const asking = post(
      call(1, "tools/call", { name: "ask_human", arguments: { question: "Which one?", timeout: 5 } }),
      ids[0],
      "2025-11-25",
      "full-0",
    );
    await Bun.sleep(200);
    expect((await post(call(2, "ping"), ids[1], "2025-11-25", "full-1")).status).toBe(200);
    // ids[2] is now the least recently used that nothing holds.
    const fresh = await initialize("2025-11-25", "full-new");
    const gone = await post(call(3, "ping"), ids[2], "2025-11-25", "full-2");
    expect(gone.status).toBe(404);
    expect(gone.body.error).toBe(
      "no such MCP session: it was closed, or unused for longer than mcp.session_idle, or closed to make room for a new one; initialize a new one",
    );
    for (const id of [ids[1], ids[3], fresh])
      expect((await post(call(4, "ping"), id, "2025-11-25")).status).toBe(200);
    const asked = await asking;
    expect(asked.body.result.structuredContent).toMatchObject({ answered: false });
    await closeAll();
  }, 20_000);

  test("when every session has a call in flight, a new one is a 503 saying so", async () => {
    const ids: string[] = [];
    for (let i = 0; i < MAX; i++) ids.push(await initialize("2025-11-25", `held-${i}`));
    const asks = ids.map((id, i) =>
      post(
        call(1, "tools/call", { name: "ask_human", arguments: { question: "Wait", timeout: 5 } }),
        id,
        "2025-11-25",
        `held-${i}`,
      ),
    );
    await Bun.sleep(300);
    const full = await post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    expect(full.status).toBe(503);
    expect(full.body.error).toBe(
      `this server holds its most MCP sessions (${MAX}, mcp.max_sessions), each with a call running: retry once one has ended, or close one you no longer use (DELETE /mcp with its mcp-session-id)`,
    );
    await Promise.all(asks);
    await closeAll();
  }, 20_000);
});

describe("abandoned sessions", () => {
  test("30 SDK clients that close without DELETE, over 4 places: every one connects, and idle they cost nothing", async () => {
    for (let i = 0; i < 30; i++) {
      const client = new Client({ name: "abandoner", version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.url}/mcp?workspace=abandoned-${i}`), {
          requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
        }),
      );
      expect((await client.listTools()).tools.length).toBeGreaterThan(10);
      // close() ends its event stream and sends no DELETE: the session stays in the table.
      await client.close();
    }
    const count = (server.app.services.store as unknown as { db: { query(s: string): { get(): any } } }).db
      .query("SELECT COUNT(*) AS n FROM mcp_sessions")
      .get().n;
    expect(count).toBe(MAX);
    // The server has nothing in use for any of them: no stream, no call.
    let inUse = await mcpInUse(server.url, TOKEN);
    for (let i = 0; i < 50 && inUse.streams > 0; i++) {
      await Bun.sleep(50);
      inUse = await mcpInUse(server.url, TOKEN);
    }
    expect(inUse).toEqual({ streams: 0, busy: 0 });
    await closeAll();
  }, 30_000);
});
