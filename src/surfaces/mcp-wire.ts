// JSON-RPC over one HTTP exchange, as MCP's Streamable HTTP carries it: what a posted message is,
// the error answers, and the exchange that answers a POST's requests. An exchange answers with one
// JSON body when the result is all there is to say, and turns into an event stream the moment
// something must go out first (a progress notification, a log line, a question for the user), or a
// call runs long enough to need keep-alives.
import { McpFailure, type McpNotice } from "./mcp-methods.ts";

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
export const INTERNAL_ERROR = -32603;

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
    private readonly headers: Record<string, string> = {},
  ) {
    this.left = expected;
    this.response = new Promise((resolve) => {
      this.resolve = resolve;
    });
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
  answer(message: RpcResponse): void {
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
    this.resolve(Response.json(body, { headers: this.headers }));
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
          ...this.headers,
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
