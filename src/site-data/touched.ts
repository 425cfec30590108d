// What a save must read afresh. Only a document can change its origin's storage, and one alive at a
// save keeps running after it (a timer, a pagehide handler, a second tab): an origin is read again
// when a document loaded it since the last save or restore, or had one at that save (any tab, any
// frame). Where nothing runs, the rest is carried. The held connection's navigation events are followed, per
// connection: a new one (the server restarted, the connection dropped, the browser was reattached)
// knows nothing, and its first save reads everything. Spare-tab pages are the server's own.

import type { BrowsingContext } from "webdriver-bidi-protocol";
import type { BidiSocket } from "../grid/bidi.ts";
import { SPARE_PATH } from "../grid/net-rules.ts";
import { originOf } from "../store/record.ts";

interface Tracker {
  /** Origins a document loaded since the baseline, or had one alive at it. */
  touched: Set<string>;
  /** The origins the baseline snapshot held, as the save or restore that set it left them; null: none known. */
  baseline: string[] | null;
}

/** The tracker's key on its connection (BidiSocket.attached). */
const TRACKER = Symbol("site-data: touched origins");

const web = (url: string): string | null => {
  const o = originOf(url);
  if (!/^https?:\/\//.test(o)) return null;
  try {
    return new URL(url).pathname === SPARE_PATH ? null : o;
  } catch {
    return null;
  }
};

function tracker(socket: BidiSocket): Tracker {
  return socket.attached(TRACKER, () => {
    const made: Tracker = { touched: new Set(), baseline: null };
    const seen = (p: BrowsingContext.NavigationInfo) => {
      const o = web(p?.url ?? "");
      if (o) made.touched.add(o);
    };
    // The held connection subscribes to these for the whole browser.
    socket.on("browsingContext.navigationCommitted", null, seen);
    socket.on("browsingContext.load", null, seen);
    socket.on("browsingContext.fragmentNavigated", null, seen);
    return made;
  });
}

const sameSet = (a: readonly string[], b: readonly string[]) => {
  const s = new Set(a);
  return a.length === b.length && b.every((x) => s.has(x));
};

type Contexts = Array<{ context: string; url: string; children?: unknown }>;

/** Every http(s) origin with a document in any tab or frame of `tree`. */
function originsIn(tree: Contexts): string[] {
  const out = new Set<string>();
  const walk = (cs: Contexts | null | undefined) => {
    for (const c of cs ?? []) {
      const o = web(c.url);
      if (o) out.add(o);
      walk(c.children as Contexts);
    }
  };
  walk(tree);
  return [...out];
}

/**
 * Begins a save's read: the origins to read afresh (touched since the baseline, live now), or null
 * when the server cannot know and everything is read (the history's origins and `seen`). `stored` is the snapshot's origins now: one
 * changed beneath (a Forget, another browser's save) reads everything too. From here on, what loads
 * counts toward the next save; `saved` sets the new baseline once the save is written (a save
 * that is not written leaves none: the next reads everything).
 */
export async function beginRead(
  socket: BidiSocket,
  stored: readonly string[],
): Promise<{
  fresh: string[] | null;
  /** The touched and live origins, known or not: a full read adds them to the history's. */
  seen: string[];
  /** Each tab's url now, as the browser said it (the tree this read asked for). */
  tabs: Map<string, string>;
  /** The save wrote: `saved`, its origins, are what the next read compares with. */
  saved: (saved: string[]) => void;
}> {
  const t = tracker(socket);
  const known = t.baseline !== null && sameSet(t.baseline, stored);
  const touched = [...t.touched];
  t.touched = new Set();
  t.baseline = null;
  const tree = (await socket.send("browsingContext.getTree", {})).contexts;
  const live = originsIn(tree);
  // A document alive now may write after this save's read: its origin is read again at the next.
  for (const o of live) t.touched.add(o);
  const seen = [...new Set([...touched, ...live])];
  return {
    fresh: known ? seen : null,
    seen,
    tabs: new Map(tree.map((c) => [c.context, c.url])),
    saved: (saved) => {
      t.baseline = [...saved];
    },
  };
}

/** Watches `socket` from a restore's start, so nothing loaded during it goes unseen. */
export function watch(socket: BidiSocket): void {
  const t = tracker(socket);
  t.touched = new Set();
  t.baseline = null;
}

/** A restore that finished is a baseline: the browser holds what the snapshot held. */
export function restored(socket: BidiSocket, origins: string[]): void {
  tracker(socket).baseline = [...origins];
}
