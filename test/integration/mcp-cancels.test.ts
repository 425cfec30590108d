// MCP cancels drain nothing: a batch of 9,000 cancels for ids the session never used writes no mark
// to the store and looks up at most MAX_CANCELS of them. Measured by counting the store's calls.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startServer, type TestServer, TOKEN } from "../support/server.ts";

let server: TestServer;
const counts = { put: 0, has: 0 };

beforeAll(async () => {
  server = await startServer({ dataDir: false });
  const store = server.app.services.store;
  const put = store.putMark.bind(store);
  const has = store.hasMark.bind(store);
  store.putMark = (name, seconds) => {
    if (name.startsWith("mcp-cancel:")) counts.put++;
    return put(name, seconds);
  };
  store.hasMark = (name) => {
    if (name.startsWith("mcp-cancel:")) counts.has++;
    return has(name);
  };
});

afterAll(async () => {
  await server.close();
});

async function post(body: unknown, session: string | null) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${TOKEN}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "x-workspace": "cancels",
  };
  if (session) {
    headers["mcp-session-id"] = session;
    headers["mcp-protocol-version"] = "2025-06-18";
  }
  const res = await fetch(`${server.url}/mcp`, { method: "POST", headers, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return res;
}

test("9,000 cancels for ids never used: no mark written, at most 16 looked up", async () => {
  const init = await post(
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    },
    null,
  );
  const session = init.headers.get("mcp-session-id");
  expect(session).toBeTruthy();
  const batch = Array.from({ length: 9000 }, (_, i) => ({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: `never-${i}`, reason: "x" },
  }));
  // The SDK may refuse such a batch; what matters is what reached the store first.
  await post(batch, session);
  expect(counts.put).toBe(0);
  expect(counts.has).toBeLessThanOrEqual(16);
});
