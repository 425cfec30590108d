// The stream an MCP session keeps open (GET /mcp): what the server says unasked, which is a
// subscribed resource's notifications/resources/updated. One per session on a server (a new one
// replaces the old); its subscriptions are marks in the record store, so a subscribe taken by
// another server of the group reaches it within a poll.
import type { ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { badInput } from "../errors.ts";
import type { Services } from "../services.ts";
import { ResourceWatch, SUBSCRIBABLE, subscriptionMark } from "./mcp-subscribe.ts";

/** How often a stream looks for subscriptions taken by another server, and says it is alive. */
const POLL_MS = 2_000;
const BEAT_MS = 15_000;

interface Open {
  watch: ResourceWatch;
  end: () => void;
}

export class McpStreams {
  private readonly open = new Map<string, Open>();

  constructor(
    private readonly services: Services,
    private readonly idle: number,
  ) {}

  /** How many streams are open on this server. */
  get size(): number {
    return this.open.size;
  }

  /** The watch of the session's stream, when this server holds it. */
  watchOf(session: string): ResourceWatch | undefined {
    return this.open.get(session)?.watch;
  }

  /** Ends the session's stream, if this server holds one (the session closed). */
  end(session: string): void {
    this.open.get(session)?.end();
  }

  /** Answers GET /mcp for an open session: an event stream that lasts until the client leaves. */
  stream(session: string, workspace: string, request: Request): Response {
    if (!(request.headers.get("accept") ?? "").includes("text/event-stream")) {
      throw badInput("a GET to /mcp opens the session's event stream: send Accept: text/event-stream");
    }
    this.end(session);
    const encoder = new TextEncoder();
    let ended = false;
    let end = () => {};
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        const write = (text: string) => {
          if (ended) return;
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            end();
          }
        };
        const send = async (n: ServerNotification) =>
          write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", ...n })}\n\n`);
        const watch = new ResourceWatch(this.services, workspace, send);
        const poll = setInterval(() => void this.marks(session, watch), POLL_MS);
        const beat = setInterval(() => {
          write(": alive\n\n");
          // A stream in use keeps its session open; a session closed elsewhere ends it.
          this.services.store.mcpSession(session, this.idle, { use: false }).then(
            (w) => w === null && end(),
            () => undefined,
          );
        }, BEAT_MS);
        end = () => {
          if (ended) return;
          ended = true;
          clearInterval(poll);
          clearInterval(beat);
          watch.stop();
          if (this.open.get(session)?.end === end) this.open.delete(session);
          request.signal.removeEventListener("abort", end);
          try {
            controller.close();
          } catch {
            // closed by the client already
          }
        };
        this.open.set(session, { watch, end });
        request.signal.addEventListener("abort", end, { once: true });
        write(": open\n\n");
        void this.marks(session, watch);
      },
      cancel: () => end(),
    });
    return new Response(body, {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        connection: "keep-alive",
        "mcp-session-id": session,
      },
    });
  }

  /** Brings the watch in line with the session's marks (subscriptions any server took). */
  private async marks(session: string, watch: ResourceWatch): Promise<void> {
    // Asked all at once: a Redis store pipelines them on its one connection.
    const marks = await Promise.all(
      SUBSCRIBABLE.map((uri) =>
        this.services.store.hasMark(subscriptionMark(session, uri)).catch(() => null),
      ),
    );
    for (const [i, uri] of SUBSCRIBABLE.entries()) {
      const on = marks[i];
      if (on === true && !watch.has(uri)) await watch.add(uri);
      else if (on === false && watch.has(uri)) watch.remove(uri);
    }
  }

  close(): void {
    for (const o of [...this.open.values()]) o.end();
  }
}
