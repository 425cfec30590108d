// The exchange that runs one POST's requests over MCP's Streamable HTTP, each end to end (its method
// looked up and its params checked, a tool call run, its answer written), and the tool calls running
// on this server that a cancel may reach. `dispatch` is every transport's door to the methods (stdio's too).
//
// An exchange answers with one JSON body when the results are all there is to say, and turns into an
// event stream the moment something must go out first (a progress notification, a log line, a
// question for the user), or a call runs long enough to need keep-alives. A tool call's log lines go
// out on it too (mcp-log.ts).
//
// A tools/call the exchange runs is registered for cancels as it starts, with the signal it runs
// with. A cancel may come in another request than its call, on another server of the group: each
// POST's cancels stop the calls they name first (mcp-http.ts), here or by a mark in the store that
// the call's server looks for. A call costs the store nothing in its first second: only one still
// running then marks its id as the session's (so made-up ids never get a mark) and starts looking for
// cancels; a cancel that finds no such mark looks once more after that second.
import type { LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Asking } from "../actions/action.ts";
import { issueError } from "../actions/validate.ts";
import { errorBody, statusOf } from "../errors.ts";
import type { Log } from "../log.ts";
import { askHuman } from "../person/actions.ts";
import type { Redactor } from "../secrets/redactor.ts";
import type { Services } from "../services.ts";
import { TOOL_TABLE, toolError } from "./mcp-answers.ts";
import { askRound, asksInForm } from "./mcp-elicit.ts";
import { logRelay } from "./mcp-log.ts";
import { type McpRequest, METHODS, type Method, meta, method } from "./mcp-methods.ts";
import { secretFirst } from "./mcp-secrets.ts";
import {
  failureOf,
  INVALID_PARAMS,
  McpFailure,
  type McpNotice,
  METHOD_NOT_FOUND,
  type RequestId,
  type RpcMessage,
  type RpcRequest,
  type RpcResponse,
} from "./mcp-wire.ts";

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

/** A request as its transport hands it to the exchange (the exchange adds what it sends and its signal). */
export type RequestOf = Omit<McpRequest, "notify" | "logLine" | "signal" | "requestId">;

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
   * Runs one of the POST's requests and answers it: its method is handed `req` and what it may send
   * before its answer (a tool call's log relay is set up here, for as long as it runs) and the signal
   * it runs with (a tool call's is registered for cancels until it ends); its result (as `finish`
   * says it), or its failure as a JSON-RPC error, is the answer.
   */
  async run(
    m: RpcRequest,
    req: RequestOf,
    finish?: (result: Promise<Record<string, unknown>>) => Promise<unknown>,
  ): Promise<void> {
    const { log, level, workspace, redactor, signal, cancels } = this.of;
    const call =
      cancels && m.method === "tools/call" ? cancels.registry.start(cancels.session, m.id, signal) : null;
    const notify = (n: McpNotice) => this.notify(n);
    const logs = logRelay(m.method, log, level, workspace, notify);
    try {
      const out = { ...req, requestId: m.id, notify, logLine: logs.line, signal: call?.signal ?? signal };
      const result = dispatch(out, m.method, m.params);
      this.answer({ jsonrpc: "2.0", id: m.id, result: await (finish ? finish(result) : result) });
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

/**
 * Answers one request: its method's result, or throws an McpFailure (unknown method, invalid
 * params naming the field, the method's own refusal).
 */
export async function dispatch(
  req: McpRequest,
  name: string,
  params: unknown,
): Promise<Record<string, unknown>> {
  const m = Object.hasOwn(MCP_METHODS, name) ? MCP_METHODS[name] : undefined;
  if (!m) throw new McpFailure(METHOD_NOT_FOUND, `Method not found: ${name}`);
  const parsed = m.params.safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    const field = issue.path.map(String).join(".");
    throw new McpFailure(INVALID_PARAMS, `invalid params: ${issueError(m.params, issue).message}`, {
      field: field ? `params.${field}` : "params",
    });
  }
  return m.handle(req, parsed.data);
}

const ToolCall = z.looseObject({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()).optional(),
  _meta: meta,
});

/** invoke reads for the workspace (pieces typed in another's browser mask nothing here). */
async function callTool(req: McpRequest, params: z.infer<typeof ToolCall>): Promise<Record<string, unknown>> {
  const { services, workspace } = req;
  const action = TOOL_TABLE.byName.get(params.name);
  if (!action)
    throw new McpFailure(INVALID_PARAMS, `no tool ${params.name}: tools/list names them`, {
      field: "params.name",
    });
  // ask_human, for a client that asks its user itself: now (2025-era), or in rounds (2026-07-28).
  let asking: Asking | undefined;
  if (action === askHuman && asksInForm(req.client?.capabilities)) {
    if (req.ask) asking = { ask: req.ask };
    else if (!req.session) {
      const round = await askRound(services, workspace, params);
      if ("result" in round) return round.result;
      asking = round.asking;
    }
  }
  // A secret the call needs, asked of the client's user at the server's page first.
  const first = await secretFirst(req, action, params);
  if (first) return first;
  const token = params._meta?.progressToken;
  // The call's own signal follows the request's only while the call runs: the lease's later work
  // outlives the answer, and a client leaving after it stops none of that.
  const stop = new AbortController();
  const relay = () => stop.abort(req.signal.reason);
  req.signal.addEventListener("abort", relay, { once: true });
  const began = performance.now();
  const took = () => `${Math.round(performance.now() - began)} ms`;
  try {
    const result = await services.workspaces.calls.invoke({
      surface: "mcp",
      workspace,
      action,
      args: params.arguments ?? {},
      signal: stop.signal,
      ...(asking && { asking }),
      ...(req.origin && { origin: req.origin }),
      progress: (progress, total, message) => {
        if (token === undefined) return;
        void req
          .notify({
            method: "notifications/progress",
            params: { progressToken: token, progress, total, message },
          })
          .catch(() => undefined);
      },
    });
    const line = `${action.name}: done in ${took()}`;
    const more = action.mcpContent?.(result);
    const structured = more?.structured ?? result;
    const json = more?.json === false ? [] : [{ type: "text" as const, text: JSON.stringify(structured) }];
    const answer = { content: [...(more?.blocks ?? []), ...json], structuredContent: structured };
    // The call's own line is the last thing it sends before the exchange writes its answer.
    await req.logLine("info", line);
    return answer;
  } catch (err) {
    if (errorBody(err).error.startsWith("something failed"))
      services.log.error(`tool ${action.name}: ${errorBody(err).error}`);
    await req.logLine("warning", `${action.name}: failed (${statusOf(err)}) in ${took()}`);
    return toolError(err, services.redactor);
  } finally {
    req.signal.removeEventListener("abort", relay);
  }
}

/** Every method by name: the table's (mcp-methods.ts) and tools/call. */
export const MCP_METHODS: Record<string, Method> = {
  ...METHODS,
  "tools/call": method(ToolCall, callTool),
};

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
