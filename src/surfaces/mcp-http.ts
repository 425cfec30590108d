// MCP over Streamable HTTP at /mcp, served by any server of a group, with no SDK server built for a
// request: each message goes straight to its exchange (mcp-exchange.ts), which runs it on the method table.
//
// 2025-era sessions (2025-11-25 and the versions before it): a session is a few bytes in the record
// store (what it is: its workspace, its version, whether its client answers elicitations, the log
// level it chose; and when it was last used), not a transport in one server's memory, and a POST
// reads it once. initialize opens it; when mcp.max_sessions are open, the least recently used one
// that no call keeps is closed to make room (a client that went without DELETE costs a row until
// then, and nothing once it is gone); it closes after mcp.session_idle unused. A POST's cancels stop
// the calls they name first (a cancel may land on another server than its call); its requests run in
// its exchange (mcp-exchange.ts), which registers its tool calls for cancels, carries their
// notifications and log lines and writes their answers. A GET opens the session's event stream (mcp-stream.ts).
// Batches are JSON-RPC's only where the version has them (2025-03-26, at most MAX_BATCH messages);
// 2025-06-18 and later take one message per POST.
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { issueError } from "../actions/validate.ts";
import { badInput, errorBody, notFound, unavailable } from "../errors.ts";
import type { Services } from "../services.ts";
import { CAPABILITIES, INSTRUCTIONS, SERVER_INFO } from "./mcp-answers.ts";
import { asksInForm, elicitRequest, replyOf } from "./mcp-elicit.ts";
import { Exchange, McpCancels, type RequestOf } from "./mcp-exchange.ts";
import { McpListens } from "./mcp-listen.ts";
import type { SessionNeeds } from "./mcp-methods.ts";
import { claimsModern, McpModern } from "./mcp-modern.ts";
import { asksByUrl, declinedOf, urlRequest } from "./mcp-secrets.ts";
import { McpStreams } from "./mcp-stream.ts";
import { storedSubscriptions } from "./mcp-subscribe.ts";
import {
  errorResponse,
  INVALID_REQUEST,
  kindOf,
  type McpLevel,
  type RpcMessage,
  type RpcRequest,
  type RpcResponse,
} from "./mcp-wire.ts";
import { workspaceOf } from "./rest.ts";

export const sessionsFull = (max: number) =>
  `this server holds its most MCP sessions (${max}, mcp.max_sessions), each with a call running: retry once one has ended, or close one you no longer use (DELETE /mcp with its mcp-session-id)`;
export const NO_SESSION =
  "no such MCP session: it was closed, or unused for longer than mcp.session_idle, or closed to make room for a new one; initialize a new one";

/** How long a session's subscriptions are kept (a session unused for mcp.session_idle closes first). */
const SUBSCRIPTIONS_KEEP_S = 7 * 24 * 3600;
/** The most messages a 2025-03-26 batch may hold (the only version with batches). */
export const MAX_BATCH = 16;
/** A call running a beat or longer gets a keep-alive on its answer, and keeps its session from eviction on every server for KEEP_S, renewed each beat. */
const BEAT_MS = 15_000;
const KEEP_S = 45;

/** What MCP over HTTP has in use in this server's memory for its sessions (an idle one: nothing). */
export interface McpInUse {
  streams: number;
  busy: number;
}

/** What a 2025-era session is, as the store keeps it. */
export interface SessionInfo {
  workspace: string;
  version: string;
  /** The client answers form-mode elicitation requests (it declared the capability). */
  elicitation?: boolean;
  /** The client opens URLs for its user (URL-mode elicitation). */
  elicitUrl?: boolean;
  /** The level its tool calls' log lines go out at (logging/setLevel); none chosen, none go. */
  level?: McpLevel;
}

function sessionInfo(stored: string): SessionInfo {
  // A session opened before sessions carried more than their workspace.
  if (!stored.startsWith("{")) return { workspace: stored, version: LATEST_PROTOCOL_VERSION };
  return JSON.parse(stored) as SessionInfo;
}

const INITIALIZE = z.looseObject({
  protocolVersion: z.string(),
  capabilities: z.looseObject({ elicitation: z.looseObject({}).optional() }),
  clientInfo: z.looseObject({ name: z.string(), version: z.string() }),
});

const NOT_ACCEPTABLE = "Not Acceptable: Client must accept both application/json and text/event-stream";

export class McpHttp {
  private readonly idle: number;
  private readonly max: number;
  /** tools/call requests running on this server, and the cancels that reach them. */
  private readonly cancels: McpCancels;
  private readonly streams: McpStreams;
  /** 2026-07-28's subscriptions/listen streams open here. */
  private readonly listens: McpListens;
  private readonly modern: McpModern;
  /** Sessions with a request in flight on this server, and how many: never the ones evicted. */
  private readonly busy = new Map<string, number>();
  /** The POSTs in flight here, for the beat. */
  private readonly running = new Set<{ session: string; exchange: Exchange; since: number }>();
  /** Every BEAT_MS: a long call's answer gets a keep-alive and its session is kept on every server. */
  private readonly beat: ReturnType<typeof setInterval>;

  constructor(private readonly services: Services) {
    this.idle = services.config.mcp.session_idle;
    this.max = services.config.mcp.max_sessions;
    this.streams = new McpStreams(services, this.idle);
    this.listens = new McpListens(services);
    this.modern = new McpModern(services, this.listens);
    this.cancels = new McpCancels(services.store);
    // One timer for every call in flight: a call that ends within a beat costs no timer of its own.
    this.beat = setInterval(() => this.keepAlive(), BEAT_MS);
    this.beat.unref?.();
  }

  /** Each call running since the last beat or longer: a keep-alive, and its session kept. */
  private keepAlive(): void {
    const now = Date.now();
    const sessions = new Set<string>();
    for (const r of this.running) {
      if (now - r.since < BEAT_MS) continue;
      r.exchange.beat();
      sessions.add(r.session);
    }
    for (const id of sessions)
      void this.services.store.mcpSession(id, this.idle, { use: false, keep: KEEP_S }).catch(() => undefined);
  }

  /**
   * Answers one /mcp request that passed the gate (src/admin/auth.ts), its body as its route read it (a POST's JSON;
   * src/app.ts); a failure it throws is the app's to answer (src/http/json.ts).
   */
  async handle(request: Request, body: unknown): Promise<Response> {
    if (request.method === "POST" && claimsModern(request, body)) {
      const modern = await this.modern.handle(request, body);
      if (modern) return modern;
    }
    const id = request.headers.get("mcp-session-id");
    if (!id) return this.initialize(request, body);
    const info = await this.session(id, request.method === "POST");
    if (info === null) throw notFound(NO_SESSION);
    if (request.method === "DELETE") {
      await this.services.store.closeMcpSession(id);
      this.streams.end(id);
      return new Response(null, { status: 200 });
    }
    if (request.method === "GET") return this.streams.stream(id, info.workspace, request);
    if (request.method !== "POST") return methodNotAllowed();
    return this.post(request, body, id, info);
  }

  private async post(request: Request, body: unknown, id: string, info: SessionInfo): Promise<Response> {
    if (!acceptsBoth(request)) return errorResponse(406, -32000, NOT_ACCEPTABLE);
    const version = request.headers.get("mcp-protocol-version") ?? info.version;
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version))
      return errorResponse(
        400,
        -32000,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
      );
    const messages = batchOf(body, version);
    if (messages instanceof Response) return messages;
    await this.cancels.stop(id, messages);
    // The client's user replied to a question ask_human put to them: it answers that question.
    for (const m of messages) {
      const reply = kindOf(m) === "response" ? replyOf(m as RpcResponse) : null;
      if (reply)
        void this.services.questions
          .reply(info.workspace, reply.id, reply.text)
          .catch((err: unknown) =>
            this.services.log.info(
              `workspace ${info.workspace}: a reply from the client was not delivered: ${errorBody(err).error}`,
            ),
          );
    }
    // The client's user will not open a secret's page: its request goes, and the call waiting on it ends.
    for (const m of messages) {
      const declined = kindOf(m) === "response" ? declinedOf(m as RpcResponse) : null;
      if (declined)
        void this.services.personSecrets.withdraw(info.workspace, declined).catch(() => undefined);
    }
    const requests = messages.filter((m): m is RpcRequest => kindOf(m) === "request");
    if (requests.some((m) => m.method === "initialize"))
      return errorResponse(400, INVALID_REQUEST, "Invalid Request: this session is initialized already");
    if (requests.length === 0) return new Response(null, { status: 202 });
    const { services } = this;
    const exchange = new Exchange(requests.length, Array.isArray(body), {
      signal: request.signal,
      cancels: { registry: this.cancels, session: id },
      log: services.log,
      redactor: services.redactor,
      workspace: info.workspace,
      level: info.level ?? null,
    });
    const session = this.ports(id, info);
    const origin = new URL(request.url).origin;
    const running = { session: id, exchange, since: Date.now() };
    this.running.add(running);
    this.busyBy(id, +1);
    const req: RequestOf = {
      services,
      workspace: info.workspace,
      session,
      client: { capabilities: info.elicitation ? { elicitation: {} } : {} },
      ...(info.elicitation && { ask: (q: string, text: string) => exchange.send(elicitRequest(q, text)) }),
      origin,
      ...(info.elicitUrl && {
        elicitUrl: (r: string, url: string, text: string) => exchange.send(urlRequest(r, url, text)),
      }),
    };
    void Promise.all(requests.map((m) => exchange.run(m, req))).finally(() => {
      this.running.delete(running);
      this.busyBy(id, -1);
    });
    return exchange.response;
  }

  private async initialize(request: Request, body: unknown): Promise<Response> {
    if (request.method !== "POST") throw badInput("start an MCP session with an initialize POST");
    if (!acceptsBoth(request)) return errorResponse(406, -32000, NOT_ACCEPTABLE);
    const workspace = workspaceOf(request);
    if (Array.isArray(body))
      return errorResponse(400, INVALID_REQUEST, "Invalid Request: initialize is sent alone, not in a batch");
    const message = body as RpcMessage;
    if (kindOf(message) !== "request" || (message as RpcRequest).method !== "initialize")
      throw badInput("no mcp-session-id header: start an MCP session with an initialize request");
    const { id: requestId } = message as RpcRequest;
    const params = INITIALIZE.safeParse((message as RpcRequest).params);
    if (!params.success) {
      const issue = params.error.issues[0] as z.core.$ZodIssue;
      return errorResponse(400, -32602, `invalid params: ${issueError(INITIALIZE, issue).message}`, {
        id: requestId,
      });
    }
    const asked = params.data.protocolVersion;
    const version = SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
    const info: SessionInfo = { workspace, version };
    if (asksInForm(params.data.capabilities)) info.elicitation = true;
    if (asksByUrl(params.data.capabilities)) info.elicitUrl = true;
    const id = crypto.randomUUID();
    const opened = await this.services.store.openMcpSession(id, JSON.stringify(info), this.idle, this.max, [
      ...this.busy.keys(),
    ]);
    if (!opened.opened) throw unavailable(sessionsFull(this.max));
    if (opened.evicted) this.streams.end(opened.evicted);
    const result = {
      protocolVersion: version,
      capabilities: CAPABILITIES,
      serverInfo: SERVER_INFO,
      instructions: INSTRUCTIONS,
    };
    return Response.json({ jsonrpc: "2.0", id: requestId, result }, { headers: { "mcp-session-id": id } });
  }

  /** The session's info, its idle time restarted (and made the most recently used, for a POST). */
  private async session(id: string, use: boolean): Promise<SessionInfo | null> {
    const stored = await this.services.store.mcpSession(id, this.idle, { use });
    return stored === null ? null : sessionInfo(stored);
  }

  /** The session's ports: its log level kept with what it is, its subscriptions as marks. */
  private ports(session: string, info: SessionInfo): SessionNeeds {
    const { store } = this.services;
    return {
      setLevel: async (level) => {
        await store.mcpSession(session, this.idle, { info: JSON.stringify({ ...info, level }) });
      },
      subscriptions: storedSubscriptions(store, session, SUBSCRIPTIONS_KEEP_S, () =>
        this.streams.watchOf(session),
      ),
    };
  }

  private busyBy(session: string, by: number): void {
    const n = (this.busy.get(session) ?? 0) + by;
    if (n > 0) this.busy.set(session, n);
    else this.busy.delete(session);
  }

  /** What this server has in use for MCP sessions now: streams open, sessions with a call in flight. */
  inUse(): McpInUse {
    return { streams: this.streams.size + this.listens.size, busy: this.busy.size };
  }

  async close(): Promise<void> {
    clearInterval(this.beat);
    this.streams.close();
    this.listens.close();
    this.cancels.close();
  }
}

/** A POST's messages, or the refusal: a batch where the version has none, an empty or oversized one. */
function batchOf(body: unknown, version: string): RpcMessage[] | Response {
  if (!Array.isArray(body)) {
    if (kindOf(body) === null)
      return errorResponse(400, INVALID_REQUEST, "Invalid Request: not a JSON-RPC message");
    return [body as RpcMessage];
  }
  if (version !== "2025-03-26")
    return errorResponse(
      400,
      INVALID_REQUEST,
      `Invalid Request: MCP ${version} takes one JSON-RPC message per POST (batches were removed in 2025-06-18)`,
    );
  if (body.length === 0) return errorResponse(400, INVALID_REQUEST, "Invalid Request: an empty batch");
  if (body.length > MAX_BATCH)
    return errorResponse(
      400,
      INVALID_REQUEST,
      `Invalid Request: a batch holds at most ${MAX_BATCH} messages`,
    );
  if (body.some((m) => kindOf(m) === null))
    return errorResponse(400, INVALID_REQUEST, "Invalid Request: a batch item is not a JSON-RPC message");
  return body as RpcMessage[];
}

function acceptsBoth(request: Request): boolean {
  const accept = request.headers.get("accept") ?? "";
  return accept.includes("application/json") && accept.includes("text/event-stream");
}

function methodNotAllowed(): Response {
  return errorResponse(405, -32000, "POST requests, GET for the session's event stream, DELETE to close", {
    headers: { allow: "GET, POST, DELETE" },
  });
}
