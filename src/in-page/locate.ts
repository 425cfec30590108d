// The locating scripts: what `seek` (src/browser/selectors.ts) runs in the page, once per poll, for
// each kind of target: the matches, a pointer's aim, a field, a file input, and the counts the
// messages and assert need. Each answers the counts `seek` waits on beside what it found.

import { isVisible } from "./dom.ts";
import { focusField, insertable } from "./fields.ts";
import { describe } from "./hints.ts";
import { aim, hitWatch } from "./pointer.ts";
import { coverOf } from "./seen.ts";
import { cssFor, find, type PageSelector } from "./selectors.ts";

/** What every locating script is handed beside the selector (the server's `SeekArgs`). */
interface SeekArgs {
  max: number;
  scroll: boolean;
  visible: boolean;
}

/** The default locating script: the matches (up to `max`), the first scrolled to the middle when asked. */
export function located(sel: PageSelector, opts: SeekArgs) {
  const found = find(sel);
  if (found.invalid) return { els: [], visible: 0, total: 0, invalid: found.invalid };
  const els = found.els.slice(0, opts.max);
  const first = els[0];
  if (opts.scroll && first && (found.visible > 0 || !opts.visible)) {
    first.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  }
  return { els, visible: found.visible, total: found.els.length };
}

/** How many matches of `sel` show (a message's count of visible matches). */
export function visibleMatches(sel: PageSelector): number {
  return find(sel).visible;
}

/** The document's first 20 frames: a selector for each and its window (where a match may be). */
export function framesHere(): { css: string | null; window: Window | null }[] {
  return Array.from(document.querySelectorAll("iframe,frame"))
    .slice(0, 20)
    .map((f) => ({ css: cssFor(f), window: (f as HTMLIFrameElement).contentWindow }));
}

/** How many elements `sel` matches here (0 for a broken selector). */
export function matchCount(sel: PageSelector) {
  const found = find(sel);
  return found.invalid ? 0 : found.els.length;
}

/** What assert counts: every match, the visible ones, and why the selector is broken if it is. */
export function countMatches(sel: PageSelector) {
  const f = find(sel);
  return { total: f.els.length, visible: f.visible, invalid: f.invalid };
}

// Locates for a pointer gesture: scrolled to the middle of the window, aimed at its middle, or at
// the visible point nearest it when something covers the middle (the page library's aim). With
// `watch` (a click), an element aimed at has its press watched from here on (hitWatch): one call.
export function pointerTarget(sel: PageSelector, opts: SeekArgs & { watch?: boolean }): unknown {
  const found = find(sel);
  if (found.invalid) return { els: [], visible: 0, total: 0, invalid: found.invalid };
  const base = { visible: found.visible, total: found.els.length };
  const el = found.els[0];
  if (!el || (opts.visible && !found.visible)) return { ...base, els: [] };
  el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  const got = aim(el);
  if ("dx" in got) {
    if (opts.watch) hitWatch(el);
    return { ...base, els: [el], dx: got.dx, dy: got.dy, watched: opts.watch === true };
  }
  const top = got.cover;
  // No box in view at all: the browser's own input says why.
  if (!top) return { ...base, els: [el] };
  const css = cssFor(top);
  const cover = css ? `${describe(top)} (${JSON.stringify({ css })})` : describe(top);
  if (!got.frame) return { ...base, els: [el], cover };
  const frame = cssFor(got.frame);
  return { ...base, els: [el], cover, frame: frame ? JSON.stringify({ css: frame }) : "its frame" };
}

// Finds the field. Given `insert` (plain text), a field that takes it as one insert gets it in the
// same call: one round trip for the common write.
export function fieldTarget(
  sel: PageSelector,
  opts: SeekArgs & { insert?: { text: string; clear: boolean } },
): unknown {
  const found = find(sel);
  if (found.invalid) return { total: 0, visible: 0, invalid: found.invalid };
  const base = { total: found.els.length, visible: found.visible };
  const el = found.els[0];
  if (!el || (opts.visible && !found.visible)) return base;
  const NOT_TEXT = ["button", "submit", "reset", "image", "checkbox", "radio", "file", "hidden"];
  const editable = (e: Element) =>
    (e.tagName === "INPUT" && !NOT_TEXT.includes((e as HTMLInputElement).type)) ||
    e.tagName === "TEXTAREA" ||
    (e as HTMLElement).isContentEditable;
  let field: Element | null = editable(el) ? el : null;
  if (!field && el.tagName === "LABEL") {
    const c = (el as HTMLLabelElement).control;
    if (c && editable(c)) field = c;
  }
  if (!field) {
    const inner = Array.from(el.querySelectorAll("input,textarea,[contenteditable]")).filter(
      (e) => editable(e) && isVisible(e),
    );
    if (inner.length === 1) field = inner[0] as Element;
  }
  if (!field) {
    const type = el.tagName === "INPUT" ? (el as HTMLInputElement).type : "";
    return { ...base, problem: `${el.tagName.toLowerCase()}${type ? ` type=${type}` : ""}` };
  }
  const f = field as HTMLInputElement;
  const kind = f.tagName === "INPUT" ? "input" : f.tagName === "TEXTAREA" ? "textarea" : "editable";
  const locked = f.disabled ? "disabled" : f.readOnly ? "read-only" : coverOf(f, describe);
  const filled = kind === "editable" ? (f.textContent ?? "") !== "" : f.value !== "";
  const maxLength = kind === "editable" ? -1 : f.maxLength;
  const type = kind === "input" ? f.type : undefined;
  const insert = opts.insert;
  const inserted =
    insert && !locked && insertable(kind, type, maxLength, insert.text)
      ? focusField(f, { text: insert.text, clear: insert.clear && filled })
      : undefined;
  return { ...base, field, kind, locked, filled, maxLength, type, inserted };
}

// The file input itself, the one a label controls, or the only one inside what the selector names.
export function fileTarget(sel: PageSelector): unknown {
  const found = find(sel);
  if (found.invalid) return { total: 0, visible: 0, invalid: found.invalid };
  const base = { total: found.els.length, visible: found.visible };
  const el = found.els[0];
  if (!el) return base;
  const isFile = (e: Element | null) =>
    !!e && e.tagName === "INPUT" && (e as HTMLInputElement).type === "file";
  let input: Element | null = isFile(el) ? el : null;
  if (!input && el.tagName === "LABEL" && isFile((el as HTMLLabelElement).control)) {
    input = (el as HTMLLabelElement).control;
  }
  if (!input) {
    const inner = el.querySelectorAll('input[type="file"]');
    if (inner.length === 1) input = inner[0] as Element;
  }
  if (!input) {
    const type = el.tagName === "INPUT" ? ` type=${(el as HTMLInputElement).type}` : "";
    return { ...base, problem: `${el.tagName.toLowerCase()}${type}` };
  }
  const { disabled, multiple } = input as HTMLInputElement;
  return { ...base, input, disabled, multiple };
}
