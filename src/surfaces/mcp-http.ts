// MCP over Streamable HTTP at /mcp, served by any server of a group. An MCP session is a few bytes
// in the record store (its workspace, and how long it has gone unused), not a transport in one
// server's memory: initialize opens it (capped by mcp.max_sessions across the group, closed after
// mcp.session_idle unused), and every later request, on whichever server the proxy picks, reads it
// and is served by the SDK's stateless transport made for that request alone. A request's progress
// notifications and its result travel on that request's own event stream, so they reach the
// client that asked. A cancel may land on another server than its call: it finds the call here,
// or leaves a mark in the store that the call's server looks for. A GET opens the session's event
// stream (src/surfaces/mcp-stream.ts): its subscribed resources' updates.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { badInput, notFound, unavailable } from "../errors.ts";
import type { Services } from "../services.ts";
import { MCP_BODY_METHODS, mcpGate, workspaceOf } from "./http.ts";
import { type CallHooks, mcpServer } from "./mcp.ts";
import { McpCancels } from "./mcp-cancels.ts";
import { storedLevel } from "./mcp-logging.ts";
import { McpStreams } from "./mcp-stream.ts";
import { storedSubscriptions } from "./mcp-subscribe.ts";

export const sessionsFull = (max: number) =>
  `this server holds its most MCP sessions (${max}, mcp.max_sessions): close one you no longer use (DELETE /mcp with its mcp-session-id) or retry once idle ones close`;
export const NO_SESSION =
  "no such MCP session: it was closed, or unused for longer than mcp.session_idle; initialize a new one";

/** How long a session's chosen log level and subscriptions are kept (a session unused for mcp.session_idle closes first). */
const LEVEL_KEEP_S = 7 * 24 * 3600;
/** Cancels one request may carry: the rest of a batch of 9,000 is ignored, not 9,000 store writes. */
export const MAX_CANCELS = 16;

export class McpHttp {
  private readonly idle: number;
  private readonly max: number;
  /** tools/call requests running on this server, and the cancels that reach them. */
  private readonly cancels: McpCancels;
  private readonly streams: McpStreams;

  constructor(private readonly services: Services) {
    this.idle = services.config.mcp.session_idle;
    this.max = services.config.mcp.max_sessions;
    this.streams = new McpStreams(services, this.idle);
    this.cancels = new McpCancels(services.store);
  }

  /**
   * Answers one /mcp request, its body as the app read it (a POST's JSON; `mcpBodies` declared it,
   * behind `mcpGate`); a failure it throws is the app's to answer (src/http/json.ts).
   */
  async handle(request: Request, body: unknown): Promise<Response> {
    if (!MCP_BODY_METHODS.includes(request.method)) mcpGate(this.services)(request);
    const id = request.headers.get("mcp-session-id");
    if (!id) return this.initialize(request, body);
    const workspace = await this.services.store.mcpSession(id, this.idle);
    if (workspace === null) throw notFound(NO_SESSION);
    if (request.method === "DELETE") {
      await this.services.store.closeMcpSession(id);
      this.streams.end(id);
      return new Response(null, { status: 200 });
    }
    if (request.method === "GET") return this.streams.stream(id, workspace, request);
    if (request.method !== "POST") return methodNotAllowed();
    const cancels = (Array.isArray(body) ? body : [body]).filter(isCancel).slice(0, MAX_CANCELS);
    for (const m of cancels) await this.cancels.cancel(id, m);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await mcpServer(this.services, workspace, this.hooks(id)).connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  }

  private async initialize(request: Request, body: unknown): Promise<Response> {
    if (request.method !== "POST") throw badInput("start an MCP session with an initialize POST");
    const workspace = workspaceOf(request);
    const messages = Array.isArray(body) ? body : [body];
    if (!messages.some((m) => isInitializeRequest(m))) {
      throw badInput("no mcp-session-id header: start an MCP session with an initialize request");
    }
    const id = crypto.randomUUID();
    if (!(await this.services.store.openMcpSession(id, workspace, this.idle, this.max))) {
      throw unavailable(sessionsFull(this.max));
    }
    // The SDK's session mode for this one request: it negotiates and hands the client the id.
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    await mcpServer(this.services, workspace, this.hooks(id)).connect(transport);
    const res = await transport.handleRequest(request, { parsedBody: body });
    if (!res.ok) await this.services.store.closeMcpSession(id).catch(() => undefined);
    return res;
  }

  /** The session's ports: its log level, its subscriptions, where its calls register to be cancelled. */
  private hooks(session: string): CallHooks {
    return {
      levels: storedLevel(this.services.store, session, LEVEL_KEEP_S),
      subscriptions: storedSubscriptions(this.services.store, session, LEVEL_KEEP_S, () =>
        this.streams.watchOf(session),
      ),
      cancels: { session, registry: this.cancels },
    };
  }

  async close(): Promise<void> {
    this.streams.close();
    this.cancels.close();
  }
}

function isCancel(message: unknown): boolean {
  return (message as { method?: unknown } | null)?.method === "notifications/cancelled";
}

function methodNotAllowed(): Response {
  return new Response(
    JSON.stringify({
      jsonrpc: "2.0",
      error: { code: -32000, message: "POST requests, GET for the session's event stream, DELETE to close" },
      id: null,
    }),
    { status: 405, headers: { allow: "GET, POST, DELETE", "content-type": "application/json" } },
  );
}
