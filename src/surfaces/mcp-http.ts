// MCP over Streamable HTTP at /mcp: a transport and a server per MCP session, bound to the
// workspace the initialize request named (X-Workspace or ?workspace=, as on REST). Sessions are
// capped (mcp.max_sessions) and closed after mcp.session_idle unused.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { badInput, forbidden, notFound, unavailable } from "../errors.ts";
import { log } from "../log.ts";
import type { Services } from "../services.ts";
import { hostOf, requireJson } from "./guard.ts";
import { failure, readJson, requireToken, workspaceOf } from "./http.ts";
import { mcpServer } from "./mcp.ts";

interface Live {
  transport: WebStandardStreamableHTTPServerTransport;
  workspace: string;
  seen: number;
}

export const sessionsFull = (max: number) =>
  `this server holds its most MCP sessions (${max}, mcp.max_sessions): close one you no longer use (DELETE /mcp with its mcp-session-id) or retry once idle ones close`;

export class McpHttp {
  private readonly sessions = new Map<string, Live>();
  /** Initializes under way: they count against the cap before their session exists. */
  private opening = 0;
  private readonly sweeper: ReturnType<typeof setInterval>;
  private readonly idleMs: number;
  private readonly max: number;

  constructor(private readonly services: Services) {
    this.idleMs = services.config.mcp.session_idle * 1000;
    this.max = services.config.mcp.max_sessions;
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, Math.max(1000, this.idleMs / 4)));
    this.sweeper.unref?.();
  }

  get count(): number {
    return this.sessions.size;
  }

  async handle(request: Request): Promise<Response> {
    try {
      requireToken(request, this.services.config.auth.token);
      this.checkOrigin(request);
      if (request.method === "POST") requireJson(request);
      const id = request.headers.get("mcp-session-id");
      if (id) {
        const live = this.sessions.get(id);
        if (!live || this.idle(live, Date.now())) {
          if (live) this.drop(id, live);
          throw notFound("no such MCP session: it ended or the server restarted; initialize a new one");
        }
        live.seen = Date.now();
        if (request.method === "POST") {
          const body = await readJson(request);
          return await live.transport.handleRequest(request, { parsedBody: body });
        }
        return await live.transport.handleRequest(request);
      }
      if (request.method !== "POST") throw badInput("start an MCP session with an initialize POST");
      const workspace = workspaceOf(request);
      if (this.sessions.size + this.opening >= this.max) this.sweep();
      if (this.sessions.size + this.opening >= this.max) throw unavailable(sessionsFull(this.max));
      this.opening++;
      let opened = false;
      try {
        const body = await readJson(request);
        const messages = Array.isArray(body) ? body : [body];
        if (!messages.some((m) => isInitializeRequest(m))) {
          throw badInput("no mcp-session-id header: start an MCP session with an initialize request");
        }
        const transport: WebStandardStreamableHTTPServerTransport =
          new WebStandardStreamableHTTPServerTransport({
            sessionIdGenerator: () => crypto.randomUUID(),
            onsessioninitialized: (sid) => {
              opened = true;
              this.opening--;
              this.sessions.set(sid, { transport, workspace, seen: Date.now() });
            },
            onsessionclosed: (sid) => {
              this.sessions.delete(sid);
            },
          });
        const server = mcpServer(this.services, workspace);
        await server.connect(transport);
        return await transport.handleRequest(request, { parsedBody: body });
      } finally {
        if (!opened) this.opening--;
      }
    } catch (err) {
      return failure(err);
    }
  }

  private idle(live: Live, now: number): boolean {
    return now - live.seen > this.idleMs;
  }

  private drop(id: string, live: Live): void {
    this.sessions.delete(id);
    void live.transport.close().catch(() => undefined);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, live] of this.sessions) {
      if (!this.idle(live, now)) continue;
      this.drop(id, live);
      log.debug(`closed an idle MCP session of workspace ${live.workspace}`);
    }
  }

  /** A page on another origin must not drive /mcp by any method (the app refuses its changes too). */
  private checkOrigin(request: Request): void {
    const origin = request.headers.get("origin");
    if (origin === null || this.services.hosts.ownOrigin(origin, hostOf(request))) return;
    throw forbidden("requests to /mcp from a web page on another origin are refused");
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const live of this.sessions.values()) await live.transport.close().catch(() => undefined);
    this.sessions.clear();
  }
}
