// JSON-RPC over one exchange, as MCP's Streamable HTTP carries it: what a posted message is, the
// error answers, and the exchange that runs a POST's requests and answers them. An exchange answers
// with one JSON body when the results are all there is to say, and turns into an event stream the
// moment something must go out first (a progress notification, a log line, a question for the
// user), or a call runs long enough to need keep-alives. A tool call's log lines go out on it too
// (MCP logging): the server's lines about its workspace while it runs, at or above the level the
// session chose (or the request asked, 2026-07-28), and its own line, redacted as every log line is;
// with no level chosen, none.
import type { LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import { redactCredentials } from "../errors.ts";
import type { Log, LogLevel } from "../log.ts";
import type { Redactor } from "../secrets/redactor.ts";

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
const SEVERITY: readonly LoggingLevel[] = LEVELS;
const AS_MCP: Record<LogLevel, LoggingLevel> = {
  debug: "debug",
  info: "info",
  warn: "warning",
  error: "error",
};

/** What goes out before a request's answer: its notices, and a tool call's own log line. */
export interface Outgoing {
  notify(notice: McpNotice): Promise<void>;
  /** Sends a line of the call's own, if the level lets it through. */
  logLine(level: LoggingLevel, text: string): Promise<void>;
}

export interface LogRelay {
  line: Outgoing["logLine"];
  stop(): void;
}

const SILENT: LogRelay = { line: async () => undefined, stop: () => undefined };

/**
 * For one request of `method`: a tool call relays the workspace's log lines at or above `level`
 * (null: none) to `send` until stopped; any other request hears none (it does no work in a browser).
 */
export function logRelay(
  method: string,
  log: Pick<Log, "addSink">,
  level: LoggingLevel | null,
  workspace: string,
  send: (n: McpNotice) => Promise<void>,
): LogRelay {
  if (level === null || method !== "tools/call") return SILENT;
  const min = SEVERITY.indexOf(level);
  const out = (l: LoggingLevel, data: string) =>
    send({ method: "notifications/message", params: { level: l, logger: "selenium-flow", data } }).catch(
      () => undefined,
    );
  const stop = log.addSink((_line, entry) => {
    const l = AS_MCP[entry.level];
    if (SEVERITY.indexOf(l) >= min && about(entry.text, workspace)) void out(l, entry.text);
  });
  return {
    line: async (l, text) => {
      if (SEVERITY.indexOf(l) >= min) await out(l, redactCredentials(text));
    },
    stop,
  };
}

/** Whether a log line is about the workspace: "workspace W: …", "… for W", "… W/name". */
function about(text: string, workspace: string): boolean {
  return (
    text.startsWith(`workspace ${workspace}:`) ||
    text.endsWith(` for ${workspace}`) ||
    text.includes(` for ${workspace}:`) ||
    text.includes(` ${workspace}/`)
  );
}

/** What an exchange's requests share: the server's log, the workspace, its level (null: no log lines). */
export interface ExchangeOf {
  log: Pick<Log, "addSink">;
  redactor: Pick<Redactor, "redact">;
  workspace: string;
  level: LoggingLevel | null;
}

const encoder = new TextEncoder();

/**
 * The answer to one POST of `expected` requests: JSON when their results are all it carries, an
 * event stream once a notification (or a keep-alive, `beat`) must go out before them. The calls
 * stop when the client leaves: `request.signal` aborts (its request, or the stream it reads).
 */
export class Exchange {
  readonly response: Promise<Response>;
  private resolve!: (res: Response) => void;
  private stream: ReadableStreamDefaultController<Uint8Array> | null = null;
  private readonly answers: RpcResponse[] = [];
  private left: number;
  closed = false;

  constructor(
    expected: number,
    private readonly batch: boolean,
    private readonly of: ExchangeOf,
  ) {
    this.left = expected;
    this.response = new Promise((resolve) => {
      this.resolve = resolve;
    });
  }

  /**
   * Runs one of the POST's requests and answers it: `handle` is handed what it may send before its
   * answer (a tool call's log relay is set up here, for as long as it runs); its result, or its
   * failure as a JSON-RPC error, is the answer.
   */
  async run(m: RpcRequest, handle: (out: Outgoing) => Promise<unknown>): Promise<void> {
    const { log, level, workspace, redactor } = this.of;
    const notify = (n: McpNotice) => this.notify(n);
    const logs = logRelay(m.method, log, level, workspace, notify);
    try {
      this.answer({ jsonrpc: "2.0", id: m.id, result: await handle({ notify, logLine: logs.line }) });
    } catch (err) {
      this.answer(failureOf(m.id, err, (t) => redactor.redact(t)));
    } finally {
      logs.stop();
    }
  }

  /** A notification about one of the requests, sent before its result. */
  async notify(notice: McpNotice): Promise<void> {
    this.send({ jsonrpc: "2.0", ...notice });
  }

  /** A message of the server's that belongs to one of the requests (a notice, a question for the client's user). */
  send(message: object): void {
    if (this.closed) return;
    if (!this.stream) this.upgrade();
    this.event(message);
  }

  /** Keeps a long call's answer alive (an event stream from here on, if it was not one). */
  beat(): void {
    if (this.closed) return;
    if (!this.stream) this.upgrade();
    this.write(": keep-alive\n\n");
  }

  /** One request's answer; the last one ends the exchange. */
  private answer(message: RpcResponse): void {
    if (this.closed) return;
    if (this.stream) this.event(message);
    else this.answers.push(message);
    if (--this.left > 0) return;
    this.closed = true;
    if (this.stream) {
      try {
        this.stream.close();
      } catch {
        // the client stopped reading
      }
      return;
    }
    const body = this.batch ? this.answers : this.answers[0];
    this.resolve(Response.json(body));
  }

  private upgrade(): void {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.stream = controller;
      },
      cancel: () => {
        this.closed = true;
      },
    });
    for (const m of this.answers.splice(0)) this.event(m);
    this.resolve(
      new Response(body, {
        headers: {
          "content-type": "text/event-stream",
          "cache-control": "no-cache",
          connection: "keep-alive",
        },
      }),
    );
  }

  private event(message: unknown): void {
    this.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  private write(text: string): void {
    try {
      this.stream?.enqueue(encoder.encode(text));
    } catch {
      this.closed = true;
    }
  }
}
