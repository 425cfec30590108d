// Page side of read_page: one walk of the page in reading order (same-origin frames and open shadow
// roots included) into lines of text with the interactive elements where they stand, headings and
// landmarks. The walk is kept in the document (refs.ts) and handed out in parts of at most
// max_length characters of outline: the first read returns the first part and a cursor, each
// cursor the next, until every line has been seen once. Elements are described (names, state,
// refs, a selector for scripts) only for the part that goes out. This file cuts the parts;
// outline-walk.ts walks, outline-describe.ts describes.
import { entryOf } from "./outline-describe.ts";
import { type Raw, type Walked, walkPage } from "./outline-walk.ts";
import { keepRead, readOf, refFloor, refHigh, registry } from "./refs.ts";
import { type Entry, renderEntry } from "./render.ts";

export interface ReadArgs {
  /** Characters of outline the part may take. */
  max: number;
  /** The highest ref number the server has seen given (refs count up across documents). */
  floor: number;
  /** A cursor an earlier part gave: `token.read.offset`. */
  cursor?: string;
  /** Each element's box in its viewport. */
  boxes?: boolean;
}

export type ReadOutcome =
  | { entries: Entry[]; next?: string; more?: { lines: number; elements: number }; high: number }
  | { stale: string };

// ---- parts --------------------------------------------------------------------------------------

const CURSOR = /^([a-z0-9]{6})\.(\d{1,9})\.(\d{1,9})$/;
export const CURSOR_STALE =
  "cursor is from before the page navigated or reloaded (or from another frame): call read_page without cursor to read the page again";

export function readPage(root: Element | null, args: ReadArgs): ReadOutcome {
  refFloor(args.floor);
  let walked: Walked;
  let id: number;
  let start = 0;
  if (args.cursor !== undefined) {
    const m = CURSOR.exec(args.cursor);
    const kept = m ? readOf(document, m[1] as string, Number(m[2])) : undefined;
    if (!m || !kept) return { stale: CURSOR_STALE };
    walked = kept as Walked;
    id = Number(m[2]);
    start = Number(m[3]);
    if (start > walked.raws.length) return { stale: CURSOR_STALE };
  } else {
    walked = walkPage(root ?? document.body ?? document.documentElement);
    id = keepRead(document, walked);
  }
  const entries: Entry[] = [];
  let used = 0;
  let i = start;
  for (; i < walked.raws.length; i++) {
    const entry = entryOf(walked.raws[i] as Raw, args.boxes === true);
    if (!entry) continue;
    const size = renderEntry(entry).length + 1;
    if (entries.length && used + size > args.max) break;
    entries.push(entry);
    used += size;
  }
  const out: ReadOutcome = { entries, high: refHigh() };
  if (i < walked.raws.length) {
    out.next = `${registry(document).token}.${id}.${i}`;
    const rest = walked.raws.slice(i);
    const elements = rest.reduce(
      (n, r) => n + (r.k === "line" ? r.segs.filter((x) => typeof x !== "string").length : 0),
      0,
    );
    out.more = { lines: rest.length, elements };
  }
  return out;
}
