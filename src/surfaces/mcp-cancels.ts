// Cancelling an MCP tools/call over HTTP. A cancel may come in another request than its call, on
// another server of the group: the call registers here as it starts (mcp-methods.ts), a cancel
// looks it up here (mcp-http.ts), and a cancel for a call this server does not hold leaves a mark in
// the store that the call's server looks for. A call costs the store nothing in its first second:
// only one still running then marks its id as the session's (so made-up ids never get a mark) and
// starts looking for cancels; a cancel that finds no such mark looks once more after that second.
import type { Services } from "../services.ts";

/** How often a call looks for a cancel sent to another server, and how long such a cancel is kept. */
const CANCEL_POLL_MS = 1000;
const CANCEL_KEEP_S = 600;
/** A request id longer than this is not one a client sends: its cancel is ignored. */
const MAX_ID_CHARS = 256;

/** The tools/call requests running on this server, by MCP session and request id: how to stop each. */
export class McpCancels {
  private readonly inflight = new Map<string, () => void>();

  constructor(private readonly store: Services["store"]) {}

  /** A call of `session` began: `cancel` stops it. Returns what to call once it ends. */
  register(session: string, requestId: string | number, cancel: () => void): () => void {
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
  async cancel(session: string, message: unknown): Promise<void> {
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

function callKey(session: string, requestId: string | number): string | null {
  const id = JSON.stringify(requestId);
  return id.length > MAX_ID_CHARS ? null : `mcp-cancel:${session}:${id}`;
}
