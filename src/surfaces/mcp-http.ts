// MCP over Streamable HTTP at /mcp: a transport and a server per MCP session, bound to the
// workspace the initialize request named (X-Workspace or ?workspace=, as on REST).
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { badInput, forbidden, notFound } from "../errors.ts";
import { log } from "../log.ts";
import type { Services } from "../services.ts";
import { failure, readJson, requireToken, workspaceOf } from "./http.ts";
import { mcpServer } from "./mcp.ts";

/** An MCP session nobody has used for this long is closed. */
const IDLE_MS = 60 * 60 * 1000;

interface Live {
  transport: WebStandardStreamableHTTPServerTransport;
  workspace: string;
  seen: number;
}

export class McpHttp {
  private readonly sessions = new Map<string, Live>();
  private readonly sweeper: ReturnType<typeof setInterval>;

  constructor(private readonly services: Services) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref?.();
  }

  get count(): number {
    return this.sessions.size;
  }

  async handle(request: Request): Promise<Response> {
    try {
      requireToken(request, this.services.config.auth.token);
      checkOrigin(request);
      const id = request.headers.get("mcp-session-id");
      if (id) {
        const live = this.sessions.get(id);
        if (!live)
          throw notFound("no such MCP session: it ended or the server restarted; initialize a new one");
        live.seen = Date.now();
        if (request.method === "POST") {
          const body = await readJson(request);
          return await live.transport.handleRequest(request, { parsedBody: body });
        }
        return await live.transport.handleRequest(request);
      }
      if (request.method !== "POST") throw badInput("start an MCP session with an initialize POST");
      const body = await readJson(request);
      const messages = Array.isArray(body) ? body : [body];
      if (!messages.some((m) => isInitializeRequest(m))) {
        throw badInput("no mcp-session-id header: start an MCP session with an initialize request");
      }
      const workspace = workspaceOf(request);
      const transport: WebStandardStreamableHTTPServerTransport =
        new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          onsessioninitialized: (sid) => {
            this.sessions.set(sid, { transport, workspace, seen: Date.now() });
          },
          onsessionclosed: (sid) => {
            this.sessions.delete(sid);
          },
        });
      const server = mcpServer(this.services, workspace);
      await server.connect(transport);
      return await transport.handleRequest(request, { parsedBody: body });
    } catch (err) {
      return failure(err);
    }
  }

  private sweep(): void {
    const cutoff = Date.now() - IDLE_MS;
    for (const [id, live] of this.sessions) {
      if (live.seen >= cutoff) continue;
      this.sessions.delete(id);
      void live.transport.close().catch(() => undefined);
      log.debug(`closed an idle MCP session of workspace ${live.workspace}`);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const live of this.sessions.values()) await live.transport.close().catch(() => undefined);
    this.sessions.clear();
  }
}

/** A browser page on another site must not drive this server (DNS rebinding): its Origin must be ours. */
function checkOrigin(request: Request): void {
  const origin = request.headers.get("origin");
  if (!origin) return;
  let host = "";
  try {
    host = new URL(origin).host;
  } catch {
    // fall through to the refusal
  }
  if (host && host === request.headers.get("host")) return;
  throw forbidden("requests to /mcp from a web page on another origin are refused");
}
