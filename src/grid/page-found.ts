// What a locating call found, or did not: the durable locator a ref's element keeps for a flow, and
// on a selector that matched nothing, the frame that holds a match or what the page holds nearest
// (the 400's words). The locating itself is the page's (page-input.ts `seek`).
import { type AppError, badInput } from "../errors.ts";
import type { Locator, PageSelector } from "../in-page/index.ts";
import type { NodeRef, PageFn, WindowRef } from "./page-call.ts";

/** A selector of the call's that named its element by ref, and that element's durable locator (null: none was read). */
export interface Located {
  selector: Record<string, unknown>;
  locator: Locator | null;
}

/** What a field's locating call reports (in-page fieldTarget), beside the match. */
export interface FieldMatch {
  total: number;
  visible: number;
  field?: NodeRef;
  kind?: "input" | "textarea" | "editable";
  problem?: string;
  locked?: string;
  /** Whether it holds something now (clearing it takes keys). */
  filled?: boolean;
  /** An input's type. */
  type?: string;
  /** The most characters it keeps (-1: no limit). */
  maxLength?: number;
  /** With `insert` asked: what the insert did in the same call (in-page/fields.ts focusField), absent when not tried. */
  inserted?: boolean | "ok" | "keys";
}

/** A field found, its element certain. */
export type FoundField = FieldMatch & { field: NodeRef };

/** The sandbox calls the words of a miss take. */
export interface Asker {
  readonly context: string;
  call<T>(fn: PageFn, ...args: unknown[]): Promise<T>;
  callIn<T>(context: string, fn: PageFn, ...args: unknown[]): Promise<T>;
}

// ---- the kept locator ------------------------------------------------------------------------
// A selector that names its element by ref (`{"ref": "e6"}`, or text `within` a ref) keeps, beside
// the ref, a durable locator for the element it resolved to, read in the page by the very call that
// found it (src/in-page/kept.ts): a ref lasts only as long as its document, so a run kept as a flow
// (timeline/flow.ts) names each element by its locator instead. Every locating call goes through
// `seek`, which asks here, so no action keeps its own.

/** Whether the selector names its element through a ref, which no later page will know. */
const holdsRef = (sel: PageSelector): boolean =>
  "ref" in sel || ("within" in sel && sel.within !== undefined);

/**
 * The page function to call for a locating `script` and `sel`, with the arguments that go before
 * the selector: for a selector that holds a ref, the library's `keeping`, which runs the same script
 * and then, in the same sandbox call, reads the locator of the element it found once it is ready to
 * act on (its answer's `locator`).
 */
export function keeping(script: PageFn, sel: PageSelector): [PageFn, ...PageFn[]] {
  return holdsRef(sel) ? ["keeping", script] : [script];
}

/** Notes in `located` (the call's page's) the locator a `keeping` script answered, for the call's timeline entry. */
export function noteLocator(located: Located[], given: object, got: object): void {
  const { locator } = got as { locator?: Locator | null };
  if (locator === undefined) return;
  const selector = { ...given } as Record<string, unknown>;
  const same = JSON.stringify(selector);
  const at = located.findIndex((l) => JSON.stringify(l.selector) === same);
  if (at >= 0) located.splice(at, 1);
  located.push({ selector, locator });
}

// ---- a frame holding the match ---------------------------------------------------------------
// Which frame of the current document holds what a selector names, for a "nothing matched" message
// that can say to switch into it. Each frame is asked in its own sandbox (cross-origin ones too, as
// BiDi reaches them); a few frames deep, a few dozen in all.

interface FrameAt {
  css: string | null;
  window: WindowRef | null;
}

const MAX_DEPTH = 3;
/** Frames asked in all, and how long the search may take: a page of ads must not hold the 400. */
const MAX_FRAMES = 30;
const MAX_MS = 2_000;

/**
 * The frames to enter, outermost first, to reach a match of `sel`; null when no frame holds one.
 * Breadth first (the shallowest match wins), within MAX_FRAMES frames and MAX_MS.
 */
export async function frameHolding(page: Asker, sel: PageSelector): Promise<(string | null)[] | null> {
  if ("ref" in sel) return null;
  const until = Date.now() + MAX_MS;
  let asked = 0;
  let level: { context: string; path: (string | null)[] }[] = [{ context: page.context, path: [] }];
  for (let depth = 0; depth < MAX_DEPTH && level.length; depth++) {
    const next: typeof level = [];
    for (const { context, path } of level) {
      const frames = await within(page.callIn<FrameAt[]>(context, "framesHere"), until, [] as FrameAt[]);
      for (const f of Array.isArray(frames) ? frames : []) {
        const inner = f.window?.window;
        if (!inner) continue;
        if (++asked > MAX_FRAMES || Date.now() > until) return null;
        if ((await within(page.callIn<number>(inner, "matchCount", sel), until, 0)) > 0)
          return [...path, f.css];
        next.push({ context: inner, path: [...path, f.css] });
      }
    }
    level = next;
  }
  return null;
}

/** What `p` answers by `until`, else (or when it fails) `fallback`: a frame not ready never holds it. */
async function within<T>(p: Promise<T>, until: number, fallback: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<T>((r) => {
    timer = setTimeout(() => r(fallback), Math.max(0, until - Date.now()));
  });
  try {
    return await Promise.race([p.catch(() => fallback), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The sentence for a match inside frames: which to switch into. */
export function frameSentence(path: (string | null)[]): string {
  const named = path.map((css) => (css ? JSON.stringify({ frame: { css } }) : "the frame read_page lists"));
  return `A match is inside a frame: call switch with ${named.join(", then ")} first, then try again.`;
}

// ---- what the page holds instead -------------------------------------------------------------

/** A sentence or two on what the page holds nearest to what `sel` asked for ("" if it cannot tell). */
export async function whatIsThere(page: Asker, sel: PageSelector, frames = true): Promise<string> {
  const framed = frames ? await frameHolding(page, sel).catch(() => null) : null;
  if (framed) return frameSentence(framed);
  try {
    const h = await page.call<{ what: string; items: string[]; roles?: string[] }>("hints", sel);
    const raw = "css" in sel || "xpath" in sel;
    const items = raw ? h.items : h.items.map((i) => JSON.stringify(i));
    const out: string[] = [];
    if (items.length) out.push(`Nearest ${h.what} on the page: ${items.join(", ")}.`);
    if (h.roles?.length) out.push(`Roles on the page: ${h.roles.join(", ")}.`);
    if (!out.length) out.push(`The page has no ${h.what}.`);
    return out.join(" ");
  } catch {
    // the hint is a courtesy; a message stands without it
    return "";
  }
}

const seconds = (t: number) => `${t} s`;

/** What a miss's 400 says of the selector: how it is quoted, its field, how long it was waited for. */
export interface Missed {
  sel: PageSelector;
  quoted: string;
  field: string;
  timeout: number;
}

/** The 400 for a selector that matched nothing (or nothing visible) when the wait ran out. */
export async function notMatched(
  page: Asker,
  q: Missed,
  total: number,
  /** The frames were asked during the wait and held nothing: not asked again. */
  framesAsked = false,
): Promise<Error> {
  if (total > 0) {
    return badInput(
      `${q.quoted} matched ${total === 1 ? "1 element" : `${total} elements`} but none is visible after ${seconds(q.timeout)}: it may be in a closed menu, a collapsed section or another tab. Reveal it first (hover or click what opens it), or call read_page to see what is visible`,
      q.field,
    );
  }
  if ("nth" in q.sel && q.sel.nth !== undefined) {
    const { nth, ...all } = q.sel;
    const shown = await page.call<number>("visibleMatches", all).catch(() => null);
    if (shown !== null && shown > 0)
      return badInput(
        `${q.quoted} asks for match ${nth}, but the page shows ${shown === 1 ? "1 visible match" : `${shown} visible matches`} of that text after ${seconds(q.timeout)}: give a smaller nth, or call read_page`,
        `${q.field}.nth`,
      );
  }
  const instead = await whatIsThere(page, q.sel, !framesAsked);
  return badInput(
    `nothing matched ${q.quoted} within ${seconds(q.timeout)}.${instead ? ` ${instead}` : ""} Call read_page to see the page and its selectors`,
    q.field,
  );
}

/** The 400 for an element something else covers all of, where a click would land instead. */
export function coveredError(quoted: string, cover: string | null, field: string): AppError {
  return badInput(
    `${quoted} is covered${cover ? ` by ${cover}` : " by another element"}, which would get the click: close or wait for what covers it (a dialog, a banner, an overlay), then retry`,
    field,
  );
}
