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
import { storedLevel } from "./mcp-logging.ts";
import { McpStreams } from "./mcp-stream.ts";
import { storedSubscriptions } from "./mcp-subscribe.ts";

export const sessionsFull = (max: number) =>
  `this server holds its most MCP sessions (${max}, mcp.max_sessions): close one you no longer use (DELETE /mcp with its mcp-session-id) or retry once idle ones close`;
export const NO_SESSION =
  "no such MCP session: it was closed, or unused for longer than mcp.session_idle; initialize a new one";

/** How often a call looks for a cancel sent to another server, and how long such a cancel is kept. */
const CANCEL_POLL_MS = 1000;
const CANCEL_KEEP_S = 600;
/** How long a session's chosen log level and subscriptions are kept (a session unused for mcp.session_idle closes first). */
const LEVEL_KEEP_S = 7 * 24 * 3600;
/** A request id longer than this is not one a client sends: its cancel is ignored. */
const MAX_ID_CHARS = 256;
/** Cancels one request may carry: the rest of a batch of 9,000 is ignored, not 9,000 store writes. */
export const MAX_CANCELS = 16;

export class McpHttp {
  private readonly idle: number;
  private readonly max: number;
  /** tools/call requests running on this server, by session and request id: how to stop each. */
  private readonly inflight = new Map<string, () => void>();
  private readonly streams: McpStreams;

  constructor(private readonly services: Services) {
    this.idle = services.config.mcp.session_idle;
    this.max = services.config.mcp.max_sessions;
    this.streams = new McpStreams(services, this.idle);
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
    for (const m of cancels) await this.cancelled(id, m);
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

  /** Registers each tools/call of the session, so a cancel reaches it here or through the store. */
  private hooks(session: string): CallHooks {
    return {
      levels: storedLevel(this.services.store, session, LEVEL_KEEP_S),
      subscriptions: storedSubscriptions(this.services.store, session, LEVEL_KEEP_S, () =>
        this.streams.watchOf(session),
      ),
      started: (requestId, cancel) => {
        const key = callKey(session, requestId);
        if (key === null) return () => undefined;
        this.inflight.set(key, cancel);
        // The id is the session's: a cancel sent to another server may mark it for this call.
        void this.services.store.putMark(usedKey(key), CANCEL_KEEP_S).catch(() => undefined);
        const timer = setInterval(() => {
          this.services.store.hasMark(key).then(
            (yes) => yes && cancel(),
            () => undefined,
          );
        }, CANCEL_POLL_MS);
        timer.unref?.();
        return () => {
          clearInterval(timer);
          if (this.inflight.get(key) === cancel) this.inflight.delete(key);
        };
      },
    };
  }

  private async cancelled(session: string, message: unknown): Promise<void> {
    const m = message as { params?: { requestId?: unknown } };
    const requestId = m.params?.requestId;
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const key = callKey(session, requestId);
    if (key === null) return;
    const here = this.inflight.get(key);
    if (here) here();
    // Only for an id the session used for a call (on any server): others are a client's noise.
    else if (await this.services.store.hasMark(usedKey(key)))
      await this.services.store.putMark(key, CANCEL_KEEP_S);
  }

  async close(): Promise<void> {
    this.streams.close();
    for (const cancel of this.inflight.values()) cancel();
    this.inflight.clear();
  }
}

function isCancel(message: unknown): boolean {
  return (message as { method?: unknown } | null)?.method === "notifications/cancelled";
}

/** The mark that says the session used this request id for a call. */
const usedKey = (key: string) => `${key}:used`;

function callKey(session: string, requestId: string | number): string | null {
  const id = JSON.stringify(requestId);
  return id.length > MAX_ID_CHARS ? null : `mcp-cancel:${session}:${id}`;
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
