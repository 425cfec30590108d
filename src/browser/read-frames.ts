// read_page across frames: one outline holds every frame's content. The page library reads what its
// realm can reach (the document, same-origin frames, shadow roots); a frame of another origin ends
// its part, and is read next in its own context (BiDi reaches every frame), its entries sitting
// under its frame line; then the outline goes on where it stopped. Each document keeps its own read
// (its cursor goes on from there, and the read it goes back to afterwards), so a part may end inside
// a frame and the next cursor still comes back out. Every document's refs (their letter) and cursors
// (their token) are noted with the context that holds them, so a ref acts without a switch.
import { error as wd } from "selenium-webdriver";
import type { Claim } from "../grid/hint-relay.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef, WindowRef } from "../grid/page-call.ts";
import type { Base, ReadArgs, ReadOutcome } from "../in-page/outline.ts";
import { type Entry, renderEntry } from "../in-page/render.ts";
import { notePlace } from "./ref-places.ts";

/** How long a frame's read may take before it is listed unread (an ad's frame that never answers). */
const FRAME_MS = 3_000;
/** Documents read for one part at most (a page of a hundred ad frames is not read frame by frame). */
const MAX_READS = 12;

export interface Step {
  context: string;
  root?: NodeRef | null;
  cursor?: string;
  base?: Base;
  after?: { context: string; cursor: string };
}

type Read = Exclude<ReadOutcome, { stale: string }>;

export interface Composed {
  entries: Entry[];
  next?: string;
  more?: { lines: number; elements: number };
  high: number;
}

/** `p`'s answer, or null when it fails or takes longer than `ms`. */
async function within<T>(p: Promise<T>, ms: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((r) => {
    timer = setTimeout(() => r(null), ms);
  });
  try {
    return await Promise.race([p.catch(() => null), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The first document's read with the hints it reported that its sandbox may not hold yet, as
 * takeHints takes them; one of their nodes gone with its document (a navigation since), read without.
 */
async function withHints(
  ask: (args: ReadArgs) => Promise<ReadOutcome>,
  args: ReadArgs,
  claim: Claim,
): Promise<ReadOutcome> {
  const nodes = claim.ids.map((sharedId) => ({ sharedId, context: claim.context }));
  try {
    return await ask({ ...args, hints: { takes: claim.takes, nodes } });
  } catch (err) {
    if (!(err instanceof wd.StaleElementReferenceError)) {
      claim.giveBack();
      throw err;
    }
    return ask(args);
  }
}

/**
 * One part of the whole outline, `max` characters, from `start` (the agent's document, or a
 * cursor's); `hints`, its document's hints the relay has not handed over, go with its read.
 */
export async function composeRead(
  page: Page,
  start: Step,
  o: { max: number; floor: number; boxes?: boolean; hints?: Claim | null },
): Promise<Composed | { stale: string }> {
  const carry = o.hints?.context === start.context ? o.hints : null;
  if (o.hints && !carry) o.hints.giveBack();
  const entries: Entry[] = [];
  let used = 0;
  let high = o.floor;
  let step: Step | null = start;
  for (let reads = 0; step; reads++) {
    const args: ReadArgs = { max: Math.max(1, o.max - used), floor: high, split: reads < MAX_READS - 1 };
    if (step.cursor !== undefined) args.cursor = step.cursor;
    if (step.base) args.base = step.base;
    if (step.after) args.after = step.after;
    if (o.boxes) args.boxes = true;
    const here: Step = step;
    const ask = (a: ReadArgs): Promise<ReadOutcome> =>
      page.callIn<ReadOutcome>(here.context, "readPage", here.root ?? null, a);
    const asked: Promise<ReadOutcome> = reads === 0 && carry ? withHints(ask, args, carry) : ask(args);
    // The agent's own document answers as any call does; a frame that does not is left unread.
    const got: ReadOutcome | null = reads === 0 ? await asked : await within(asked, FRAME_MS);
    if (got && "stale" in got && reads === 0) return got;
    if (!got || "stale" in got) {
      const lastFrame = entries.findLast((e) => e.k === "frame");
      if (lastFrame?.k === "frame") lastFrame.readable = false;
      step = step.after ? { context: step.after.context, cursor: step.after.cursor } : null;
      continue;
    }
    high = Math.max(high, got.high);
    notePlace(page.held, `cur:${got.token}`, step.context);
    notePlace(page.held, `ref:${got.letter}`, step.context);
    for (const f of got.frames) {
      const win = (f.win as unknown as WindowRef | null)?.window;
      if (f.letter && win) notePlace(page.held, `ref:${f.letter}`, win);
    }
    for (const e of got.entries) {
      entries.push(e);
      used += renderEntry(e).length + 1;
    }
    const next = farFrame(got);
    if (next && reads < MAX_READS - 1) {
      const [entry, win, css] = next;
      // Read next in its own context; once done, the outline goes on here (or where this one would).
      entry.readable = true;
      const after = got.next ? { context: step.context, cursor: got.next } : got.after;
      step = {
        context: win,
        base: { d: entry.d + 1, frame: got.base.frame && css ? [...got.base.frame, { css }] : null },
      };
      if (after) step.after = after;
      continue;
    }
    if (got.next) {
      const out: Composed = { entries, next: got.next, high };
      if (got.more) out.more = got.more;
      return out;
    }
    step = got.after ? { context: got.after.context, cursor: got.after.cursor } : null;
  }
  return { entries, high };
}

/** The frame the part ended at because this realm could not read into it: its entry, window and selector. */
function farFrame(got: Read): [Extract<Entry, { k: "frame" }>, string, string | null] | null {
  const last = got.entries.at(-1);
  const seen = got.frames.at(-1);
  const win = (seen?.win as unknown as WindowRef | null)?.window;
  if (last?.k !== "frame" || last.readable || !seen || seen.ref !== last.ref || !win) return null;
  return [last, win, seen.css];
}
