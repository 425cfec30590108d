// The exchange that runs one POST's requests over MCP's Streamable HTTP, and the tool calls running
// on this server that a cancel may reach.
//
// An exchange answers with one JSON body when the results are all there is to say, and turns into an
// event stream the moment something must go out first (a progress notification, a log line, a
// question for the user), or a call runs long enough to need keep-alives. A tool call's log lines go
// out on it too (MCP logging): the server's lines about its workspace while it runs, at or above the
// level the session chose (or the request asked, 2026-07-28), and its own line, redacted as every
// log line is; with no level chosen, none.
//
// A tools/call the exchange runs is registered for cancels as it starts, with the signal it runs
// with. A cancel may come in another request than its call, on another server of the group: each
// POST's cancels stop the calls they name first (mcp-http.ts), here or by a mark in the store that
// the call's server looks for. A call costs the store nothing in its first second: only one still
// running then marks its id as the session's (so made-up ids never get a mark) and starts looking for
// cancels; a cancel that finds no such mark looks once more after that second.
import type { LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import { redactCredentials } from "../errors.ts";
import type { Log, LogLevel } from "../log.ts";
import type { Redactor } from "../secrets/redactor.ts";
import type { Services } from "../services.ts";
import {
  failureOf,
  LEVELS,
  type McpNotice,
  type Outgoing,
  type RequestId,
  type RpcMessage,
  type RpcRequest,
  type RpcResponse,
} from "./mcp-wire.ts";

const SEVERITY: readonly LoggingLevel[] = LEVELS;
const AS_MCP: Record<LogLevel, LoggingLevel> = {
  debug: "debug",
  info: "info",
  warn: "warning",
  error: "error",
};

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
  /** The POST's own signal: it aborts when the client leaves. */
  signal: AbortSignal;
  /** A 2025-era session's: its tool calls registered for cancels as they start. */
  cancels?: { registry: McpCancels; session: string };
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
   * answer (a tool call's log relay is set up here, for as long as it runs) and the signal it runs
   * with (a tool call's is registered for cancels until it ends); its result, or its failure as a
   * JSON-RPC error, is the answer.
   */
  async run(
    m: RpcRequest,
    handle: (out: Outgoing & { signal: AbortSignal }) => Promise<unknown>,
  ): Promise<void> {
    const { log, level, workspace, redactor, signal, cancels } = this.of;
    const call =
      cancels && m.method === "tools/call" ? cancels.registry.start(cancels.session, m.id, signal) : null;
    const notify = (n: McpNotice) => this.notify(n);
    const logs = logRelay(m.method, log, level, workspace, notify);
    try {
      this.answer({
        jsonrpc: "2.0",
        id: m.id,
        result: await handle({ notify, logLine: logs.line, signal: call?.signal ?? signal }),
      });
    } catch (err) {
      this.answer(failureOf(m.id, err, (t) => redactor.redact(t)));
    } finally {
      logs.stop();
      call?.end();
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

/** How often a call looks for a cancel sent to another server, and how long such a cancel is kept. */
const CANCEL_POLL_MS = 1000;
const CANCEL_KEEP_S = 600;
/** A request id longer than this is not one a client sends: its cancel is ignored. */
const MAX_ID_CHARS = 256;
/** Cancels one request may carry: the rest are ignored, not looked up. */
export const MAX_CANCELS = 16;

/** The tools/call requests running on this server, by MCP session and request id: how to stop each. */
export class McpCancels {
  private readonly inflight = new Map<string, () => void>();

  constructor(private readonly store: Services["store"]) {}

  /** One POST of `session`: stops the calls its cancels name, here or marked for the server running them. */
  async stop(session: string, messages: readonly RpcMessage[]): Promise<void> {
    const cancels = messages
      .filter((m) => "method" in m && m.method === "notifications/cancelled")
      .slice(0, MAX_CANCELS);
    for (const m of cancels) await this.cancel(session, m);
  }

  /**
   * A tools/call of `session` starts: the signal it runs with (aborted when the client leaves the
   * POST, `left`, or cancels the call), and the end of its registration.
   */
  start(session: string, requestId: RequestId, left: AbortSignal): { signal: AbortSignal; end(): void } {
    const stop = new AbortController();
    const relay = () => stop.abort(left.reason);
    if (left.aborted) relay();
    else left.addEventListener("abort", relay, { once: true });
    const unregister = this.register(session, requestId, () =>
      stop.abort(new Error("the client cancelled this call")),
    );
    return {
      signal: stop.signal,
      end: () => {
        unregister();
        left.removeEventListener("abort", relay);
      },
    };
  }

  /** A call of `session` began: `cancel` stops it. Returns what to call once it ends. */
  private register(session: string, requestId: RequestId, cancel: () => void): () => void {
    const key = callKey(session, requestId);
    if (key === null) return () => undefined;
    this.inflight.set(key, cancel);
    let marked = false;
    const timer = setInterval(() => {
      // The id is the session's: a cancel sent to another server may mark it for this call.
      if (!marked) void this.store.putMark(usedKey(key), CANCEL_KEEP_S).catch(() => undefined);
      marked = true;
      this.store.hasMark(key).then(
        (yes) => yes && cancel(),
        () => undefined,
      );
    }, CANCEL_POLL_MS);
    timer.unref?.();
    return () => {
      clearInterval(timer);
      if (this.inflight.get(key) === cancel) this.inflight.delete(key);
    };
  }

  /** A `notifications/cancelled` of `session`: stops its call here, or marks it for the server running it. */
  private async cancel(session: string, message: unknown): Promise<void> {
    const m = message as { params?: { requestId?: unknown } };
    const requestId = m.params?.requestId;
    if (typeof requestId !== "string" && typeof requestId !== "number") return;
    const key = callKey(session, requestId);
    if (key === null) return;
    const here = this.inflight.get(key);
    if (here) return here();
    // Only for an id the session used for a call (on any server): others are a client's noise. A
    // call in its first second has no mark yet: looked for once more, after it would have one.
    if (await this.marked(key)) return;
    const later = setTimeout(() => void this.marked(key).catch(() => undefined), CANCEL_POLL_MS * 1.5);
    later.unref?.();
  }

  /** Marks the call cancelled when its id is marked as the session's; whether it was. */
  private async marked(key: string): Promise<boolean> {
    const here = this.inflight.get(key);
    if (here) {
      here();
      return true;
    }
    if (!(await this.store.hasMark(usedKey(key)))) return false;
    await this.store.putMark(key, CANCEL_KEEP_S);
    return true;
  }

  /** Stops every call running here (the server closes). */
  close(): void {
    for (const cancel of this.inflight.values()) cancel();
    this.inflight.clear();
  }
}

/** The mark that says the session used this request id for a call. */
const usedKey = (key: string) => `${key}:used`;

function callKey(session: string, requestId: RequestId): string | null {
  const id = JSON.stringify(requestId);
  return id.length > MAX_ID_CHARS ? null : `mcp-cancel:${session}:${id}`;
}
