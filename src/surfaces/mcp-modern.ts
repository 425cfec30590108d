// MCP 2026-07-28 over Streamable HTTP, beside the 2025-era sessions on the same /mcp: no
// initialize, no session; every request carries its version and the client's capabilities in its
// _meta, names its workspace as a REST call does (X-Workspace or ?workspace=), and is answered from
// the same method table (mcp-exchange.ts `dispatch`) with no server built for it. Which era a request is, and
// the first rungs of the spec's validation ladder (its JSON-RPC shape, the header/body cross-check,
// the _meta envelope), are the official SDK's v2 `classifyInboundRequest`; the rungs after it
// (the supported version, the standard headers, the methods this version has) are here. Results
// carry `resultType` and the server's identity, and the lists their cache hints; a tool that needs
// the user answers `input_required` (mcp-elicit.ts); `subscriptions/listen` is a stream of its own
// (mcp-listen.ts).
import { errorBody } from "../errors.ts";
import type { Services } from "../services.ts";
import { CAPABILITIES, INSTRUCTIONS, RESOURCE_NOT_FOUND, SERVER_INFO } from "./mcp-answers.ts";
import { Exchange } from "./mcp-exchange.ts";
import type { ListenParams, McpListens } from "./mcp-listen.ts";
import {
  errorResponse,
  INVALID_PARAMS,
  LEVELS,
  McpFailure,
  type McpLevel,
  METHOD_NOT_FOUND,
  type RequestId,
} from "./mcp-wire.ts";
import { workspaceOf } from "./rest.ts";

export const MODERN = "2026-07-28";
/** Every version /mcp serves, newest first: 2026-07-28 statelessly, the rest as sessions. */
export const SERVED_VERSIONS = [MODERN, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];

const META = {
  version: "io.modelcontextprotocol/protocolVersion",
  capabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
} as const;

/** The methods 2026-07-28 has, of those this server answers; anything else is method-not-found (404). */
const METHODS = new Set([
  "server/discover",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "subscriptions/listen",
]);

/** How long a client may keep each cacheable result, and who may share it. */
const CACHE: Record<string, { ttlMs: number; cacheScope: "public" | "private" }> = {
  // The same for every caller and workspace, until this server is upgraded.
  "server/discover": { ttlMs: 3_600_000, cacheScope: "public" },
  "tools/list": { ttlMs: 3_600_000, cacheScope: "public" },
  "prompts/list": { ttlMs: 3_600_000, cacheScope: "public" },
  "resources/list": { ttlMs: 3_600_000, cacheScope: "public" },
  "resources/templates/list": { ttlMs: 3_600_000, cacheScope: "public" },
  // A workspace's own and changing (the page moves): read again each time.
  "resources/read": { ttlMs: 0, cacheScope: "private" },
};

/** The methods whose Mcp-Name header mirrors a body field (SEP-2243). */
const NAMED: Record<string, "name" | "uri"> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

const HEADER_MISMATCH = -32020;
const UNSUPPORTED_VERSION = -32022;

type Classifier = typeof import("@modelcontextprotocol/server").classifyInboundRequest;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const objectOr = (v: unknown): Record<string, unknown> => (isObject(v) ? v : {});

/**
 * Whether a POST may be a 2026-07-28 one: its version header names a modern revision, or a message
 * carries the per-request envelope. The rest is 2025-era traffic, and never loads the classifier.
 */
export function claimsModern(request: Request, body: unknown): boolean {
  const header = request.headers.get("mcp-protocol-version");
  if (header !== null && header >= MODERN) return true;
  const claims = (m: unknown) =>
    isObject(m) && isObject(m.params) && isObject(m.params._meta) && META.version in m.params._meta;
  return Array.isArray(body) ? body.some(claims) : claims(body);
}

export class McpModern {
  private classify: Classifier | null = null;

  constructor(
    private readonly services: Services,
    private readonly listens: McpListens,
  ) {}

  /** Answers a POST `claimsModern` took; null when the classifier calls it 2025-era after all. */
  async handle(request: Request, body: unknown): Promise<Response | null> {
    this.classify ??= (await import("@modelcontextprotocol/server")).classifyInboundRequest;
    const header = (name: string) => request.headers.get(name) ?? undefined;
    const route = this.classify({
      httpMethod: request.method,
      protocolVersionHeader: header("mcp-protocol-version"),
      mcpMethodHeader: header("mcp-method"),
      mcpNameHeader: header("mcp-name"),
      body,
    });
    if (route.kind === "legacy") return null;
    if (route.kind === "reject")
      return errorResponse(route.httpStatus, route.code, route.message, { id: idOf(body), data: route.data });
    const message = route.message;
    const id = "id" in message ? (message.id as RequestId) : null;
    const requested = route.classification.revision ?? "unknown";
    if (requested !== MODERN)
      return errorResponse(400, UNSUPPORTED_VERSION, "Unsupported protocol version", {
        id,
        data: { supported: SERVED_VERSIONS, requested },
      });
    if (id === null) return new Response(null, { status: 202 });
    const mismatch = headerProblem(request, message.method, message.params);
    if (mismatch)
      return errorResponse(
        400,
        HEADER_MISMATCH,
        `Bad Request: the request headers and body disagree: ${mismatch}`,
        {
          id,
        },
      );
    if (!METHODS.has(message.method))
      return errorResponse(404, METHOD_NOT_FOUND, `Method not found: ${message.method}`, { id });
    const params = (message.params ?? {}) as Record<string, unknown>;
    const meta = params._meta as Record<string, unknown>;
    if (message.method === "server/discover")
      return Response.json({ jsonrpc: "2.0", id, result: stamp(message.method, discover()) });
    let workspace: string;
    try {
      workspace = workspaceOf(request);
    } catch (err) {
      return errorResponse(400, INVALID_PARAMS, errorBody(err).error, { id });
    }
    if (message.method === "subscriptions/listen")
      return this.listens.listen(request, id, workspace, params as ListenParams, (r) => stamp("", r));
    const level = LEVELS.includes(meta[META.logLevel] as McpLevel) ? (meta[META.logLevel] as McpLevel) : null;
    const { services } = this;
    const exchange = new Exchange(1, false, {
      signal: request.signal,
      log: services.log,
      redactor: services.redactor,
      workspace,
      level,
    });
    const origin = new URL(request.url).origin;
    const req = { services, workspace, client: { capabilities: objectOr(meta[META.capabilities]) }, origin };
    void exchange.run({ jsonrpc: "2.0", id, method: message.method, params }, req, (result) =>
      result.then(
        (r) => stamp(message.method, r),
        (err: unknown) => {
          throw modernCode(err);
        },
      ),
    );
    return exchange.response;
  }
}

/** server/discover's answer: the versions served, what the server offers, how to use it. */
function discover(): Record<string, unknown> {
  return { supportedVersions: SERVED_VERSIONS, capabilities: CAPABILITIES, instructions: INSTRUCTIONS };
}

/** A result as 2026-07-28 says it: its type, the server's identity, and (for a list or read) its cache hints. */
function stamp(method: string, result: Record<string, unknown>): Record<string, unknown> {
  const resultType = (result.resultType as string | undefined) ?? "complete";
  const meta = { ...(result._meta as object | undefined), [META.serverInfo]: SERVER_INFO };
  const cache = resultType === "complete" ? CACHE[method] : undefined;
  return { ...result, resultType, _meta: meta, ...cache };
}

/** 2026-07-28 says a resource that is not there is invalid params (2025-11-25 had a code of its own). */
function modernCode(err: unknown): unknown {
  return err instanceof McpFailure && err.code === RESOURCE_NOT_FOUND
    ? new McpFailure(INVALID_PARAMS, err.message, err.data)
    : err;
}

/** The standard headers a request must carry beside its body (SEP-2243), or what is wrong with them. */
function headerProblem(request: Request, method: string, params: unknown): string | null {
  const version = request.headers.get("mcp-protocol-version");
  if (version === null)
    return `the body envelope names protocol version ${MODERN} but the required MCP-Protocol-Version header is absent`;
  if (request.headers.get("mcp-method") === null)
    return `the body names method ${method} but the required Mcp-Method header is absent`;
  const field = Object.hasOwn(NAMED, method) ? NAMED[method] : undefined;
  if (!field) return null;
  const value = isObject(params) && typeof params[field] === "string" ? (params[field] as string) : undefined;
  const name = request.headers.get("mcp-name");
  if (name === null)
    return value === undefined
      ? null
      : `the body carries params.${field}="${value}" but the required Mcp-Name header is absent`;
  const decoded = decodeName(name.trim());
  if (decoded === null) return "the Mcp-Name header carries an invalid Base64 sentinel value";
  if (value !== undefined && decoded !== value)
    return `the body carries params.${field}="${value}" but the Mcp-Name header names "${decoded}"`;
  return null;
}

/** An Mcp-Name value as sent: plain, or a UTF-8 string in the Base64 sentinel `=?base64?…?=`. */
function decodeName(value: string): string | null {
  if (!(value.startsWith("=?base64?") && value.endsWith("?="))) return value;
  const b64 = value.slice(9, -2);
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(b64)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(b64, "base64"));
  } catch {
    return null;
  }
}

/** The id of a body that could be read, for an error that refuses it. */
function idOf(body: unknown): RequestId | null {
  const id = isObject(body) ? body.id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
