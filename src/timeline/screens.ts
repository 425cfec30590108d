// Screens: a small JPEG of what the workspace's browser shows, over its held BiDi connection. One is
// kept with a page-changing call's entry while screens are on, and the live view takes one about
// once a second while someone watches the workspace, and none while nobody does. Nothing is pictured
// while a bound write runs (its fields are painted without their text in the page all the same).
import { messageOf } from "../errors.ts";
import { BidiError, type BidiSocket } from "../grid/bidi.ts";
import type { Log } from "../log.ts";
import { focusFor } from "../store/record.ts";
import type { RecordStore } from "../store/types.ts";

/** BiDi's JPEG at quality 0.5: a tenth of the PNG's bytes, plenty to see what happened. */
export const JPEG = { type: "image/jpeg", quality: 0.5 } as const;
/** How long a screen may take before it is skipped: a busy page does not hold a call up for it. */
export const SCREEN_MS = 3_000;
/** The live view's pace while a browser is live, and how often it looks again when none is. */
export const FRAME_MS = 1_000;
const IDLE_LOOK_MS = 3_000;

/** A browser's held connection as a screen needs it: its socket, and how many navigations began. */
export interface Drawable {
  readonly socket: BidiSocket;
  readonly navigationCount: number;
  /** A bound write under way (held.ts): nothing is pictured then. */
  readonly writing?: boolean;
  /** Tells the browser's bound writes a capture is in flight, so they wait for it. */
  drawn?<T>(capture: Promise<T>): Promise<T>;
  /** The dialogs open now, by tab: a tab holding one runs no script until it is answered. */
  readonly prompts?: ReadonlyMap<string, unknown>;
}

/** The widest a screen is kept: a 7680-px window gives a 1280-px picture, not a 12 MB one. */
export const SCREEN_WIDTH = 1280;
// The largest capture decoded for the downscale (16K x 16K): anything more is not pictured.
const MAX_PIXELS = 16_384 * 16_384;

/** The JPEG at most SCREEN_WIDTH wide (decoded and encoded off the JavaScript thread). */
export async function fitWidth(jpeg: Uint8Array): Promise<Uint8Array> {
  const image = new Bun.Image(jpeg, { maxPixels: MAX_PIXELS });
  const { width } = await image.metadata();
  if (width <= SCREEN_WIDTH) return jpeg;
  return image
    .resize(SCREEN_WIDTH, undefined, { withoutEnlargement: true })
    .jpeg({ quality: Math.round(JPEG.quality * 100), progressive: false })
    .bytes();
}

/**
 * The tab's viewport as a JPEG; "typed" while a bound write runs (no picture then; a write waits for
 * a screen in flight before its value goes in), "moved" when a navigation began while it was drawn.
 */
export async function jpegOf(held: Drawable, tab: string): Promise<Uint8Array | "typed" | "moved"> {
  const before = held.navigationCount;
  if (held.writing) return "typed";
  const drawing = held.socket.send(
    "browsingContext.captureScreenshot",
    { context: tab, origin: "viewport", format: JPEG },
    { timeoutMs: SCREEN_MS },
  );
  const shot = await (held.drawn ? held.drawn(drawing) : drawing);
  // Read once the picture is in: a navigation that began before it is told before it.
  if (held.navigationCount !== before) return "moved";
  return fitWidth(new Uint8Array(Buffer.from(shot.data, "base64")));
}

/** The screen of what `reach` found; a tab closed since the agent picked it gives way to the first one. */
export async function screenOf(at: { held: Drawable; tab: string }): Promise<Uint8Array | "typed" | "moved"> {
  try {
    return await jpegOf(at.held, at.tab);
  } catch (err) {
    if (!(err instanceof BidiError) || err.error !== "no such frame") throw err;
    const tabs = await at.held.socket.send(
      "browsingContext.getTree",
      { maxDepth: 0 },
      { timeoutMs: SCREEN_MS },
    );
    const first = tabs.contexts[0]?.context;
    if (!first || first === at.tab) throw err;
    return jpegOf(at.held, first);
  }
}

/** What the timeline needs of the workspace manager: a live browser's held connection. */
export interface Reach {
  store: RecordStore;
  connection(id: string): Promise<Drawable & { use(): () => void }>;
}

/**
 * The workspace's browser as it is now: its held socket and the tab the agent acts in (the first
 * tab when it never picked one), or null when it has no browser. Never opens one.
 */
export async function reach(
  needs: Reach,
  workspace: string,
): Promise<{ socket: BidiSocket; held: Drawable; tab: string; browser: string; release: () => void } | null> {
  const record = await needs.store.get(workspace);
  const id = record?.session_id;
  if (!id) return null;
  const conn = await needs.connection(id);
  const release = conn.use();
  try {
    // The tab the agent acts in, as its last call left it (screenOf copes with one closed since).
    let tab = focusFor(record, id)?.tab ?? "";
    if (!tab) {
      const tabs = await conn.socket.send(
        "browsingContext.getTree",
        { maxDepth: 0 },
        { timeoutMs: SCREEN_MS },
      );
      tab = tabs.contexts[0]?.context ?? "";
    }
    if (!tab) {
      release();
      return null;
    }
    return { socket: conn.socket, held: conn, tab, browser: id, release };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * A frame of the live view: the JPEG; or no live browser to show, or one whose page holds a typed
 * secret (hidden); or a page that moved on while it was drawn (none this time).
 */
export type Shown = { live: true; jpeg: Uint8Array } | { live: false; hidden?: true };
export type Frame = Shown | { live: true; moved: true };

type Viewer = (frame: Shown) => void;

interface Watch {
  viewers: Set<Viewer>;
  last: Shown | null;
  /** A digest of the last JPEG sent, so an unchanged screen is not sent again. */
  digest: string;
  running: boolean;
  /** Until when (performance.now()) a person drives: frames come faster. */
  drivingUntil?: number;
  /** Ends the loop's current sleep (a person's input just landed). */
  wake?: () => void;
}

/** The live view's pace while a person drives, and how long after their last input it lasts. */
const DRIVING_FRAME_MS = 250;
const DRIVING_FOR_MS = 5000;

/** The live view: one loop per watched workspace, shared by everyone watching it, gone with the last of them. */
export class LiveScreens {
  private readonly watches = new Map<string, Watch>();

  constructor(private readonly needs: Reach & { logger: Pick<Log, "debug"> }) {}

  watched(workspace: string): boolean {
    return (this.watches.get(workspace)?.viewers.size ?? 0) > 0;
  }

  /** A person's input landed: a frame now, then about 4 a second for a while. */
  nudge(workspace: string): void {
    const w = this.watches.get(workspace);
    if (!w) return;
    w.drivingUntil = performance.now() + DRIVING_FOR_MS;
    w.wake?.();
  }

  /** Sends `viewer` the workspace's screen about once a second until the returned function is called. */
  watch(workspace: string, viewer: Viewer): () => void {
    let w = this.watches.get(workspace);
    if (!w) {
      w = { viewers: new Set(), last: null, digest: "", running: false };
      this.watches.set(workspace, w);
    }
    w.viewers.add(viewer);
    if (w.last) viewer(w.last);
    if (!w.running) void this.loop(workspace, w);
    const watch = w;
    return () => {
      watch.viewers.delete(viewer);
      if (watch.viewers.size === 0 && this.watches.get(workspace) === watch) this.watches.delete(workspace);
    };
  }

  private async loop(workspace: string, w: Watch): Promise<void> {
    w.running = true;
    try {
      while (w.viewers.size > 0) {
        const began = performance.now();
        const frame = await this.frame(workspace);
        if (w.viewers.size === 0) break;
        if ("moved" in frame) {
          // The page moved on while it was drawn: look again soon.
          await Bun.sleep(200);
          continue;
        }
        const digest = frame.live ? Bun.hash(frame.jpeg).toString(36) : frame.hidden ? "hidden" : "none";
        if (digest !== w.digest) {
          w.digest = digest;
          w.last = frame;
          for (const v of [...w.viewers]) {
            try {
              v(frame);
            } catch {
              // a viewer's failure is its own
            }
          }
        }
        const driving = (w.drivingUntil ?? 0) > performance.now();
        const pace = driving ? DRIVING_FRAME_MS : frame.live || frame.hidden ? FRAME_MS : IDLE_LOOK_MS;
        const { promise: woken, resolve } = Promise.withResolvers<void>();
        w.wake = resolve;
        await Promise.race([Bun.sleep(Math.max(50, pace - (performance.now() - began))), woken]);
        w.wake = undefined;
      }
    } finally {
      w.running = false;
    }
  }

  /** One look at the workspace's browser. */
  async frame(workspace: string): Promise<Frame> {
    let at: Awaited<ReturnType<typeof reach>> = null;
    try {
      at = await reach(this.needs, workspace);
      if (!at) return { live: false };
      const jpeg = await screenOf(at);
      if (jpeg === "typed") return { live: false, hidden: true };
      if (jpeg === "moved") return { live: true, moved: true };
      return { live: true, jpeg };
    } catch (err) {
      this.needs.logger.debug(`workspace ${workspace}: no live screen: ${messageOf(err)}`);
      return { live: false };
    } finally {
      at?.release();
    }
  }
}
