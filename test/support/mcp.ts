// A minimal MCP client over Streamable HTTP for tests: initialize once, then JSON-RPC calls.
import { type TestServer, TOKEN } from "./server.ts";

export interface McpClient {
  /** Every raw reply, so a test can prove what never appeared in one. */
  readonly texts: string[];
  /** The session's id (mcp-session-id). */
  readonly session: string;
  /**
   * One JSON-RPC request; the parsed reply (`result` or `error`), the raw text, and the
   * notifications sent on the request's stream before it.
   */
  request(method: string, params?: unknown): Promise<{ data: any; text: string; notes: any[] }>;
  /** tools/call; the tool's result (`structuredContent`, `content`, `isError`). */
  tool(name: string, args?: Record<string, unknown>): Promise<any>;
  /** resources/read; the first content's text, parsed as JSON when it is. */
  resource(uri: string): Promise<any>;
}

export async function mcpClient(server: TestServer, workspace: string): Promise<McpClient> {
  let sessionId: string | null = null;
  let nextId = 1;
  const texts: string[] = [];
  async function post(body: unknown): Promise<{ res: Response; text: string }> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "x-workspace": workspace,
    };
    if (sessionId) {
      headers["mcp-session-id"] = sessionId;
      headers["mcp-protocol-version"] = "2025-06-18";
    }
    const res = await fetch(`${server.url}/mcp`, { method: "POST", headers, body: JSON.stringify(body) });
    const text = await res.text();
    texts.push(text);
    return { res, text };
  }
  const events = (text: string): any[] =>
    text.startsWith("{")
      ? [JSON.parse(text)]
      : [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!));
  const parse = (text: string) => events(text).find((m) => m && "id" in m) ?? events(text)[0] ?? null;
  const init = await post({
    jsonrpc: "2.0",
    id: nextId++,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
  });
  if (init.res.status !== 200) throw new Error(`MCP initialize failed: ${init.res.status} ${init.text}`);
  sessionId = init.res.headers.get("mcp-session-id");
  await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  const client: McpClient = {
    texts,
    session: sessionId ?? "",
    async request(method, params) {
      const { text } = await post({ jsonrpc: "2.0", id: nextId++, method, params });
      return { data: parse(text), text, notes: events(text).filter((m) => m && !("id" in m)) };
    },
    async tool(name, args = {}) {
      const { data } = await client.request("tools/call", { name, arguments: args });
      return data.result;
    },
    async resource(uri) {
      const { data } = await client.request("resources/read", { uri });
      const text = data.result.contents[0].text as string;
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    },
  };
  return client;
}

/** A tool's annotations as a client reads them: the spec's defaults where the server left a hint out. */
export function hints(annotations: Record<string, unknown> | undefined): Record<string, unknown> {
  return {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
    ...annotations,
  };
}
