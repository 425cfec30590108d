// Cancelling an MCP tools/call over HTTP. A cancel may come in another request than its call, on
// another server of the group. Each POST comes here once (mcp-http.ts): its cancels stop the calls
// they name, then its tools/call requests register, each with the signal it runs with. A cancel for
// a call this server does not hold leaves a mark in the store that the call's server looks for. A
// call costs the store nothing in its first second: only one still running then marks its id as the
// session's (so made-up ids never get a mark) and starts looking for cancels; a cancel that finds no
// such mark looks once more after that second.
import type { Services } from "../services.ts";
import { kindOf, type RequestId, type RpcMessage, type RpcRequest } from "./mcp-wire.ts";

/** How often a call looks for a cancel sent to another server, and how long such a cancel is kept. */
const CANCEL_POLL_MS = 1000;
const CANCEL_KEEP_S = 600;
/** A request id longer than this is not one a client sends: its cancel is ignored. */
const MAX_ID_CHARS = 256;
/** Cancels one request may carry: the rest are ignored, not looked up. */
export const MAX_CANCELS = 16;

/** A POST's calls as registered: the signal each runs with, and the end of their registration. */
export interface Registered {
  /** Aborts when the client leaves the request or cancels the call (the request's own signal for any other method). */
  signal(requestId: RequestId): AbortSignal;
  /** The POST is answered: its calls no longer listen for cancels. */
  end(): void;
}

/** The tools/call requests running on this server, by MCP session and request id: how to stop each. */
export class McpCancels {
  private readonly inflight = new Map<string, () => void>();

  constructor(private readonly store: Services["store"]) {}

  /**
   * One POST of `session`: stops the calls its cancels name (here, or marked for the server running
   * them), then registers its tools/call requests; `left` aborts when the client leaves the POST.
   */
  async post(session: string, messages: readonly RpcMessage[], left: AbortSignal): Promise<Registered> {
    const cancels = messages
      .filter((m) => "method" in m && m.method === "notifications/cancelled")
      .slice(0, MAX_CANCELS);
    for (const m of cancels) await this.cancel(session, m);
    const signals = new Map<RequestId, AbortSignal>();
    const ends: (() => void)[] = [];
    for (const m of messages) {
      if (kindOf(m) !== "request" || (m as RpcRequest).method !== "tools/call") continue;
      const { id } = m as RpcRequest;
      const stop = new AbortController();
      const relay = () => stop.abort(left.reason);
      if (left.aborted) relay();
      else left.addEventListener("abort", relay, { once: true });
      const unregister = this.register(session, id, () =>
        stop.abort(new Error("the client cancelled this call")),
      );
      signals.set(id, stop.signal);
      ends.push(() => {
        unregister();
        left.removeEventListener("abort", relay);
      });
    }
    return {
      signal: (id) => signals.get(id) ?? left,
      end: () => {
        for (const end of ends) end();
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
