// JSON-RPC as MCP carries it: what a posted message is, the error answers, MCP's log levels, and what
// a request may send before its answer. The exchange that runs a POST's requests is mcp-exchange.ts.
import type { LoggingLevel } from "@modelcontextprotocol/sdk/types.js";

export type RequestId = string | number;

export interface RpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: unknown;
}

export interface RpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: unknown;
}

export interface RpcResponse {
  jsonrpc: "2.0";
  id: RequestId | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export type RpcMessage = RpcRequest | RpcNotification | RpcResponse;

export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

/** A JSON-RPC failure to answer with: its code, its message, and what `data` it carries. */
export class McpFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "McpFailure";
  }
}

/** A notification the server sends about one request, on that request's own stream. */
export interface McpNotice {
  method: string;
  params?: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is RequestId =>
  (typeof v === "string" && v.length <= 256) || (typeof v === "number" && Number.isFinite(v));

/** What a posted value is: a request, a notification, a response, or null when none of them. */
export function kindOf(m: unknown): "request" | "notification" | "response" | null {
  if (!isObject(m) || m.jsonrpc !== "2.0") return null;
  if (typeof m.method === "string") {
    if (!("id" in m)) return "notification";
    return isId(m.id) ? "request" : null;
  }
  if (isId(m.id) && ("result" in m || isObject(m.error))) return "response";
  return null;
}

export function rpcError(id: RequestId | null, code: number, message: string, data?: unknown) {
  return { jsonrpc: "2.0" as const, id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

/** A JSON-RPC error as the whole answer, with an HTTP status (a refusal before any method ran). */
export function errorResponse(
  status: number,
  code: number,
  message: string,
  opts: { id?: RequestId | null; data?: unknown; headers?: Record<string, string> } = {},
): Response {
  return Response.json(rpcError(opts.id ?? null, code, message, opts.data), {
    status,
    headers: opts.headers,
  });
}

/** A failure thrown by a method as its JSON-RPC error (an McpFailure's code, else an internal error). */
export function failureOf(id: RequestId, err: unknown, redact: (t: string) => string): RpcResponse {
  if (err instanceof McpFailure) return rpcError(id, err.code, redact(err.message), err.data);
  return rpcError(id, INTERNAL_ERROR, redact(err instanceof Error ? err.message : String(err)));
}

/** MCP's levels, least severe first. */
export const LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const satisfies readonly LoggingLevel[];
export type McpLevel = (typeof LEVELS)[number];
/** What goes out before a request's answer: its notices, and a tool call's own log line. */
export interface Outgoing {
  notify(notice: McpNotice): Promise<void>;
  /** Sends a line of the call's own, if the level lets it through. */
  logLine(level: LoggingLevel, text: string): Promise<void>;
}
