// Page side of read_page: one walk of the page in reading order (same-origin frames and open shadow
// roots included) into lines of text with the interactive elements where they stand, headings and
// landmarks. The walk is kept in the document (refs.ts) and handed out in parts of at most
// max_length characters of outline: the first read returns the first part and a cursor, each
// cursor the next, until every line has been seen once. Elements are described (names, state,
// refs, a selector for scripts) only for the part that goes out. This file cuts the parts;
// outline-walk.ts walks, outline-describe.ts describes. A frame the sandbox cannot read into (another
// origin's) ends a part with `split`: the server reads it in its own context, where its read is kept
// with where it sits in the outline (`base`) and where the outline goes on after it (`then`).
import { cut, norm } from "./dom.ts";
import { forgetHints } from "./hinted.ts";
import { entryOf } from "./outline-describe.ts";
import { type Frame, type Raw, type Walked, walkPage } from "./outline-walk.ts";
import { keepRead, readOf, refFloor, refHigh, registry } from "./refs.ts";
import { type Entry, renderEntry } from "./render.ts";
import { takeHints } from "./standalone.ts";

export interface ReadArgs {
  /** Characters of outline the part may take. */
  max: number;
  /** The highest ref number the server has seen given (refs count up across documents). */
  floor: number;
  /** A cursor an earlier part gave: `token.read.offset`. */
  cursor?: string;
  /** Each element's box in its viewport. */
  boxes?: boolean;
  /** A part ends after a frame this realm cannot read (the server reads it in its own context). */
  split?: boolean;
  /** Where this document's outline sits in the whole (a frame's, read in its own context). */
  base?: Base;
  /** Where the whole goes on once this document's outline is done. */
  after?: Then;
  /** Hints the relay had not handed over yet, taken along (grid/hint-relay.ts claim): takeHints's arguments. */
  hints?: { takes: string; nodes: unknown[] };
}

/** A frame's outline in the whole: how deep, and the frames to enter to use its CSS selectors (null: none can). */
export interface Base {
  d: number;
  frame: Frame | null;
}
/** The read of another document to go on with (a cursor of its). */
export interface Then {
  context: string;
  cursor: string;
}

/** A frame the part lists, with its window (the server reads one it cannot see into itself) and refs' letter. */
export interface FrameSeen {
  ref: string;
  win: Window | null;
  /** Its CSS selector in its own document, if one finds it. */
  css: string | null;
  letter?: string;
}

export type ReadOutcome =
  | {
      entries: Entry[];
      next?: string;
      more?: { lines: number; elements: number };
      high: number;
      /** This document's: its cursors' token and its refs' letter. */
      token: string;
      letter: string;
      frames: FrameSeen[];
      /** Where this document's outline sits in the whole. */
      base: Base;
      /** Present once this document's outline is done: the read to go on with. */
      after?: Then;
    }
  | { stale: string };

interface Kept {
  walked: Walked;
  base: Base;
  after?: Then;
}

// ---- parts --------------------------------------------------------------------------------------

const CURSOR = /^([a-z0-9]{6})\.(\d{1,9})\.(\d{1,9})$/;
export const CURSOR_STALE =
  "cursor is from before the page navigated or reloaded (or from another frame): call read_page without cursor to read the page again";

/** A select read on its own: itself, then each of its options on a line, as many as it has. */
function optionLines(select: HTMLSelectElement): Walked {
  const raws: Raw[] = [{ k: "line", d: 0, segs: [select], fr: [] }];
  for (const o of Array.from(select.options))
    raws.push({ k: "line", d: 1, li: true, segs: [cut(norm(o.label || o.text), 200) || "(empty)"], fr: [] });
  return { raws, notes: new Map([[select, { options: true }]]) };
}

export function readPage(root: Element | null, args: ReadArgs): ReadOutcome {
  if (args.hints) {
    takeHints(args.hints.takes, ...args.hints.nodes);
    forgetHints();
  }
  refFloor(args.floor);
  let kept: Kept;
  let id: number;
  let start = 0;
  if (args.cursor !== undefined) {
    const m = CURSOR.exec(args.cursor);
    const had = m ? readOf(document, m[1] as string, Number(m[2])) : undefined;
    if (!m || !had) return { stale: CURSOR_STALE };
    kept = had as Kept;
    id = Number(m[2]);
    start = Number(m[3]);
    if (start > kept.walked.raws.length) return { stale: CURSOR_STALE };
  } else {
    const walked =
      root?.tagName === "SELECT"
        ? optionLines(root as HTMLSelectElement)
        : walkPage(root ?? document.body ?? document.documentElement);
    kept = { walked, base: args.base ?? { d: 0, frame: [] } };
    if (args.after) kept.after = args.after;
    id = keepRead(document, kept);
  }
  const { walked, base } = kept;
  const entries: Entry[] = [];
  const frames: FrameSeen[] = [];
  let used = 0;
  let i = start;
  for (; i < walked.raws.length; i++) {
    const raw = walked.raws[i] as Raw;
    const entry = entryOf(raw, args.boxes === true, walked.notes, base);
    if (!entry) continue;
    const size = renderEntry(entry).length + 1;
    if (entries.length && used + size > args.max) break;
    entries.push(entry);
    used += size;
    if (raw.k === "frame" && entry.k === "frame") {
      frames.push(frameSeen(raw, entry.ref));
      // Another origin's frame: the server reads it next, then goes on from here.
      if (args.split && !raw.readable && raw.win) {
        i++;
        break;
      }
    }
  }
  const reg = registry(document);
  const out: ReadOutcome = {
    entries,
    high: refHigh(),
    token: reg.token,
    letter: reg.letter,
    frames,
    base,
  };
  if (i < walked.raws.length) {
    out.next = `${reg.token}.${id}.${i}`;
    const rest = walked.raws.slice(i);
    const elements = rest.reduce(
      (n, r) => n + (r.k === "line" ? r.segs.filter((x) => typeof x !== "string").length : 0),
      0,
    );
    out.more = { lines: rest.length, elements };
  } else if (kept.after) out.after = kept.after;
  return out;
}

/** A listed frame's window and, when this realm read it, its document's refs' letter. */
function frameSeen(raw: Extract<Raw, { k: "frame" }>, ref: string): FrameSeen {
  const seen: FrameSeen = { ref, win: raw.win, css: raw.css };
  if (raw.readable) {
    try {
      const doc = (raw.el as HTMLIFrameElement).contentDocument;
      if (doc) seen.letter = registry(doc).letter;
    } catch {
      // went cross-origin since the walk
    }
  }
  return seen;
}
