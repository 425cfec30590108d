// MCP 2026-07-28's subscriptions/listen: a POST whose answer is a stream that stays open and carries
// the change notices the client asked for, each tagged with the listen request's id. This server's
// lists do not change while it runs, so it offers resource updates only: the resources of the
// request's workspace with a fixed uri (the same ones a 2025 session subscribes to), read again
// when the workspace changes (mcp-subscribe.ts). The stream ends when the client closes it, or,
// with a final result, when the server stops.
import type { Services } from "../services.ts";
import { ResourceWatch, SUBSCRIBABLE } from "./mcp-subscribe.ts";
import type { RequestId } from "./mcp-wire.ts";

export interface ListenParams {
  notifications?: {
    toolsListChanged?: unknown;
    promptsListChanged?: unknown;
    resourcesListChanged?: unknown;
    resourceSubscriptions?: unknown;
  };
}

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
/** A comment this often keeps an idle stream from being closed by a proxy or the client. */
const BEAT_MS = 15_000;
const encoder = new TextEncoder();

export class McpListens {
  /** How to end each open stream (the server stops). */
  private readonly open = new Set<() => void>();

  constructor(private readonly services: Services) {}

  get size(): number {
    return this.open.size;
  }

  /** Answers subscriptions/listen: the acknowledgement first, then each subscribed resource's updates. */
  listen(
    request: Request,
    id: RequestId,
    workspace: string,
    params: ListenParams,
    stamp: (result: Record<string, unknown>) => Record<string, unknown>,
  ): Response {
    const asked = params.notifications?.resourceSubscriptions;
    const uris = Array.isArray(asked)
      ? asked.filter((u): u is string => SUBSCRIBABLE.includes(u as string))
      : [];
    const tag = { [SUBSCRIPTION_ID]: id };
    let end = () => {};
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        let ended = false;
        const write = (text: string) => {
          if (ended) return;
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            end();
          }
        };
        const event = (message: unknown) => write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
        const watch = new ResourceWatch(this.services, workspace, async (n) =>
          event({ jsonrpc: "2.0", method: n.method, params: { ...n.params, _meta: tag } }),
        );
        const beat = setInterval(() => write(":\n\n"), BEAT_MS);
        const stop = (graceful: boolean) => {
          if (ended) return;
          if (graceful) event({ jsonrpc: "2.0", id, result: stamp({ _meta: tag }) });
          ended = true;
          clearInterval(beat);
          watch.stop();
          this.open.delete(closing);
          request.signal.removeEventListener("abort", end);
          try {
            controller.close();
          } catch {
            // closed by the client already
          }
        };
        const closing = () => stop(true);
        end = () => stop(false);
        this.open.add(closing);
        request.signal.addEventListener("abort", end, { once: true });
        // Types this server does not send are left out of what it agrees to.
        const notifications = uris.length ? { resourceSubscriptions: uris } : {};
        event({
          jsonrpc: "2.0",
          method: "notifications/subscriptions/acknowledged",
          params: { _meta: tag, notifications },
        });
        for (const uri of uris) void watch.add(uri);
      },
      cancel: () => end(),
    });
    return new Response(body, {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      },
    });
  }

  /** Ends every stream with its final result (the server stops). */
  close(): void {
    for (const end of [...this.open]) end();
  }
}
