// The admin's live feed, read straight off the event bus: a workspace's row each time it changes
// (bursts coalesced, one row per workspace per tick), a heartbeat, and for a watched workspace its
// live screen. The JSON stream (/admin/events) and the pages' stream (/ui/events) both write it.

import type { WorkspaceRow } from "../admin/rows.ts";
import { log } from "../log.ts";
import { workspaceExists, workspaceRow } from "../registry.ts";
import type { Services } from "../services.ts";
import type { Shown } from "../timeline/screens.ts";

const HEARTBEAT_MS = 15_000;

export interface FeedHandlers {
  /** A changed workspace's row, or `{key, gone: true}` once it is forgotten. */
  row(row: WorkspaceRow | { key: string; gone: true }): void;
  beat(at: number): void;
  /** The watched workspace's screen, about once a second while the feed is open. */
  screen(frame: Shown): void;
}

/** Starts the feed (`watch`: a workspace whose screen it carries too); the function it returns stops it. */
export function openFeed(services: Services, watch: string | null, on: FeedHandlers): () => void {
  const pending = new Set<string>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  // Flushes run one after another: two at once could send a row read earlier after a newer one,
  // leaving the reader on the older.
  let flushed: Promise<void> = Promise.resolve();
  const flush = async () => {
    const keys = [...pending];
    pending.clear();
    const liveIds = await services.grid.sessions();
    for (const key of keys) {
      try {
        const exists = await workspaceExists(services, key);
        on.row(exists ? await workspaceRow(services, key, liveIds) : { key, gone: true });
      } catch (err) {
        log.warn(
          `admin events: a row for ${key} failed: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    }
  };
  const off = services.events.subscribe((key) => {
    pending.add(key);
    timer ??= setTimeout(() => {
      timer = null;
      flushed = flushed.then(flush, flush);
    }, 50);
  });
  const beat = setInterval(() => on.beat(services.now()), HEARTBEAT_MS);
  // While it is open the workspace counts as watched (its calls keep screens).
  const unwatch = watch ? services.timeline.live.watch(watch, (frame) => on.screen(frame)) : () => {};
  on.beat(services.now());
  return () => {
    off();
    unwatch();
    clearInterval(beat);
    if (timer) clearTimeout(timer);
  };
}

/**
 * An event stream the feed writes: `start` gets a writer and returns how to stop; a closed client
 * or a failed write stops it.
 */
export function streamResponse(
  request: Request,
  start: (write: (text: string) => void) => () => void,
  headers: Record<string, string>,
): Response {
  const encoder = new TextEncoder();
  let stop = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let stopped = false;
      const halt = () => {
        stopped = true;
        stop();
      };
      stop = start((text) => {
        if (stopped) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          halt();
        }
      });
      if (stopped) stop();
      request.signal.addEventListener("abort", () => {
        halt();
        try {
          controller.close();
        } catch {}
      });
    },
    cancel() {
      stop();
    },
  });
  return new Response(stream, { headers });
}
