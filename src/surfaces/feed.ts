// The admin's live feed, read straight off the event bus: a workspace's row each time it changes
// (bursts coalesced, one row per workspace per tick), a heartbeat, and for a watched workspace its
// live screen. The JSON stream (/admin/events) and the pages' stream (/ui/events) both write it.

import { workspaceExists } from "../admin/guard.ts";
import { TooMany } from "../errors.ts";
import { type WorkspaceRow, workspaceRow } from "../registry.ts";
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

/** The most live feeds one server keeps open at once (each is an open connection and a listener). */
export const MAX_FEEDS = 64;

type Row = WorkspaceRow | { key: string; gone: true };

/**
 * A server's live feeds, made once by the composition root: every feed shares it, so it listens to
 * the event bus once, and each change's row is read once (one Grid listing per flush) and handed to
 * every feed, however many are open.
 */
export class Feeds {
  readonly feeds = new Set<(row: Row) => void>();
  /** Rows read so far and Grid listings made (a test measures the feed by them). */
  readonly reads = { rows: 0, listings: 0 };
  private readonly pending = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  // Flushes run one after another: two at once could send a row read earlier after a newer one,
  // leaving the reader on the older.
  private flushed: Promise<void> = Promise.resolve();
  private off: (() => void) | null = null;

  constructor(private readonly services: Services) {}

  private add(feed: (row: Row) => void): () => void {
    this.feeds.add(feed);
    this.off ??= this.services.events.subscribe((key) => this.changed(key));
    return () => {
      this.feeds.delete(feed);
      if (this.feeds.size > 0) return;
      this.off?.();
      this.off = null;
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.pending.clear();
    };
  }

  /** Throws a 429 when MAX_FEEDS feeds are open already: checked before a stream is answered. */
  room(): void {
    if (this.feeds.size >= MAX_FEEDS) {
      throw new TooMany(
        `${MAX_FEEDS} live feeds are open on this server already: close a tab showing the admin pages, or retry later`,
        5,
      );
    }
  }

  /** Starts a feed (`watch`: a workspace whose screen it carries too); the function it returns stops it. */
  open(watch: string | null, on: FeedHandlers): () => void {
    const { services } = this;
    const off = this.add((row) => on.row(row));
    const beat = setInterval(() => on.beat(services.now()), HEARTBEAT_MS);
    // While it is open the workspace counts as watched (its calls keep screens).
    const unwatch = watch ? services.timeline.live.watch(watch, (frame) => on.screen(frame)) : () => {};
    on.beat(services.now());
    return () => {
      off();
      unwatch();
      clearInterval(beat);
    };
  }

  /**
   * A feed as events for an event stream (Elysia's generator streaming writes them): it opens with
   * a heartbeat and ends, letting go of the feed, once `signal` aborts (the client left). A stream
   * Elysia cancels ends at its next event at the latest (a heartbeat is at most HEARTBEAT_MS away).
   */
  async *events(watch: string | null, signal: AbortSignal): AsyncGenerator<FeedEvent> {
    const queue: FeedEvent[] = [];
    let wake = () => {};
    const push = (event: FeedEvent) => {
      queue.push(event);
      wake();
    };
    const stop = this.open(watch, {
      row: (row) => push({ row }),
      beat: (beat) => push({ beat }),
      screen: (screen) => push({ screen }),
    });
    const left = () => wake();
    signal.addEventListener("abort", left);
    try {
      while (!signal.aborted) {
        const next = queue.shift();
        if (next) yield next;
        else
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
      }
    } finally {
      signal.removeEventListener("abort", left);
      stop();
    }
  }

  private changed(key: string): void {
    this.pending.add(key);
    this.timer ??= setTimeout(() => {
      this.timer = null;
      const flush = () => this.flush();
      this.flushed = this.flushed.then(flush, flush);
    }, 50);
  }

  private async flush(): Promise<void> {
    const keys = [...this.pending];
    this.pending.clear();
    if (keys.length === 0 || this.feeds.size === 0) return;
    this.reads.listings++;
    const liveIds = await this.services.grid.sessions();
    for (const key of keys) {
      let row: Row;
      try {
        this.reads.rows++;
        const exists = await workspaceExists(this.services, key);
        row = exists ? await workspaceRow(this.services, key, liveIds) : { key, gone: true };
      } catch (err) {
        this.services.log.warn(
          `admin events: a row for ${key} failed: ${err instanceof Error ? err.message : String(err)}`,
        );
        continue;
      }
      for (const feed of [...this.feeds]) {
        try {
          feed(row);
        } catch {
          // a feed's failure is its own
        }
      }
    }
  }
}

/** One thing a feed says: a row, a heartbeat, or the watched workspace's screen. */
export type FeedEvent = { row: Row } | { beat: number } | { screen: Shown };
