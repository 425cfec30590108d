// Page side of a bound write (spec §1.17): a secret is in the page only inside one call. `boundArm`
// paints the document's fields without their text (the live screen, captures and video see none),
// notes every field's value, and listens for the moment to take the value back out: right after the
// first `formdata` of a form that a submit started (the browser has the value for the request), or
// when the page hides (it navigates, or goes into the back/forward cache). `boundEmpty` empties the
// fields filled from a secret and every field the page filled from one during the call (a code spread
// over boxes), as a person's delete would, so the page's own mirrors of the value follow. The value
// lives in this realm's memory only between the two.

import { allElements } from "./dom.ts";
import { commitField, type FillOutcome, fillField } from "./fill.ts";

const FIELDS = "input, textarea, [contenteditable]";
const NOT_TEXT = /^(checkbox|radio|button|submit|reset|image|file|range|color)$/i;
// Discs for the glyphs (a PDF keeps even transparent text as text), and no ink for the discs.
const COVER = [
  ["-webkit-text-security", "disc"],
  ["color", "transparent"],
  ["-webkit-text-fill-color", "transparent"],
  ["text-shadow", "none"],
  ["caret-color", "transparent"],
] as const;

interface Bound {
  /** The fields filled from a secret. */
  els: Element[];
  /** The fields filled with the agent's own text in the same call: never taken for a piece. */
  plain: Element[];
  values: string[];
  /** Every field's value when the call armed: what the page changed since is its doing. */
  before: Map<Element, string>;
  covered: [HTMLElement, [string, string, string][]][];
  /** Forms a submit event went through since the arm. */
  submitted: WeakSet<EventTarget>;
  emptied: string | null;
  off: () => void;
  wake: () => void;
}

// One bound write at a time per document (the workspace's lease holds every other call out).
let bound: Bound | null = null;
/** Why the last bound write of this document was emptied. */
let last: string | null = null;

const isField = (el: Element): boolean =>
  el.tagName === "TEXTAREA" ||
  (el as HTMLElement).isContentEditable ||
  (el.tagName === "INPUT" && !NOT_TEXT.test((el as HTMLInputElement).type || ""));

function read(el: Element): string {
  return (el as HTMLElement).isContentEditable
    ? (el.textContent ?? "")
    : ((el as HTMLInputElement).value ?? "");
}

function fields(): Element[] {
  return allElements(document).filter((el) => el.matches(FIELDS) && isField(el));
}

/**
 * Puts `to` in el (empty: takes its text out) as a person's edit would: beforeinput, the value, input
 * and change, so the page's mirrors of it follow.
 */
function setTo(el: Element, to: string): void {
  if (read(el) === to) return;
  const opts = {
    bubbles: true,
    composed: true,
    inputType: to ? "insertReplacementText" : "deleteContentBackward",
  };
  el.dispatchEvent(new InputEvent("beforeinput", { ...opts, cancelable: true }));
  if ((el as HTMLElement).isContentEditable) el.textContent = to;
  else {
    const proto = el.tagName === "TEXTAREA" ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    Object.getOwnPropertyDescriptor(proto, "value")?.set?.call(el, to);
  }
  el.dispatchEvent(new InputEvent("input", opts));
  el.dispatchEvent(new Event("change", { bubbles: true }));
}

/** Takes el's text out as a person's delete would. */
export function erase(el: Element): void {
  setTo(el, "");
}

function uncover(b: Bound): void {
  for (const [el, props] of b.covered)
    for (const [p, v, prio] of props) {
      if (v) el.style.setProperty(p, v, prio);
      else el.style.removeProperty(p);
    }
  b.covered = [];
}

/** Empties the bound fields and those the page filled from a value during the call; how many it emptied. */
export function boundEmpty(why = "asked"): number {
  const b = bound;
  if (!b) return 0;
  let n = 0;
  const piece = (v: string) => v !== "" && b.values.some((s) => s.includes(v));
  // The secret's own fields are emptied. A field the page filled from a value during the call (a
  // box of a code) goes back to what it held before the call: emptied boxes beside one that already
  // held its digit would tell which digits were right.
  const back = new Map<Element, string>();
  for (const el of b.els) back.set(el, "");
  for (const el of fields()) {
    if (b.plain.includes(el) || back.has(el)) continue;
    const now = read(el);
    const was = b.before.get(el) ?? "";
    if (now !== was && piece(now)) back.set(el, was);
  }
  for (const [el, to] of back) {
    if (read(el) === to) continue;
    setTo(el, to);
    n++;
  }
  b.emptied ??= why;
  last = b.emptied;
  b.values = [];
  b.off();
  uncover(b);
  bound = null;
  b.wake();
  return n;
}

/**
 * Arms the document for a bound write into `els` of `values` (`plain`: the fields the same call fills
 * with text): its fields painted without their text, and the moment to empty them watched.
 */
export function boundArm(els: Element[], plain: Element[], values: string[]): boolean {
  if (bound) boundEmpty("rearmed");
  last = null;
  const all = fields();
  const b: Bound = {
    els,
    plain,
    values,
    before: new Map(all.map((el) => [el, read(el)])),
    covered: [],
    submitted: new WeakSet(),
    emptied: null,
    off: () => undefined,
    wake: () => undefined,
  };
  for (const el of all) {
    const h = el as HTMLElement;
    if (!h.style) continue;
    b.covered.push([h, COVER.map(([p]) => [p, h.style.getPropertyValue(p), h.style.getPropertyPriority(p)])]);
    for (const [p, v] of COVER) h.style.setProperty(p, v, "important");
  }
  const onSubmit = (e: Event) => {
    if (e.target) b.submitted.add(e.target);
  };
  // After the page's own handlers of this formdata (the request is built from it already).
  const onFormData = (e: Event) => {
    if (e.target && b.submitted.has(e.target)) setTimeout(() => bound === b && boundEmpty("formdata"), 0);
  };
  const onHide = () => bound === b && boundEmpty("navigated");
  addEventListener("submit", onSubmit, true);
  addEventListener("formdata", onFormData);
  addEventListener("pagehide", onHide, true);
  b.off = () => {
    removeEventListener("submit", onSubmit, true);
    removeEventListener("formdata", onFormData);
    removeEventListener("pagehide", onHide, true);
  };
  bound = b;
  return true;
}

/**
 * Arms the document (boundArm) and fills each field in order, the agent's text and the secrets' values
 * alike, in one call, each then committed as a plain write's is (change): what each fill did ("ok" or
 * why not), and which fields the page changed from what went in (their indexes; never a value).
 * Nothing after a failed fill goes in.
 */
export function boundFill(
  items: { el: Element; value: string; secret: boolean }[],
  clear: boolean,
): { got: FillOutcome[]; changed: number[] } {
  boundArm(
    items.filter((i) => i.secret).map((i) => i.el),
    items.filter((i) => !i.secret).map((i) => i.el),
    items.filter((i) => i.secret).map((i) => i.value),
  );
  const got: FillOutcome[] = [];
  const changed: number[] = [];
  for (const [n, i] of items.entries()) {
    const one = fillField(i.el as HTMLInputElement, i.value, clear);
    got.push(one);
    if (one !== "ok") break;
    if (commitField(i.el as HTMLInputElement, i.value, clear)) changed.push(n);
  }
  return { got, changed };
}

/**
 * Waits until the fields were emptied (a submit's formdata, the page hiding), a bound field left the
 * document, or `ms` passed, and empties them then; why they were emptied.
 */
export async function boundWait(ms: number): Promise<string> {
  const b = bound;
  if (!b) return last ?? "none";
  const gone = () => b.els.some((el) => !el.isConnected);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    const poll = setInterval(() => gone() && done(), 50);
    function done() {
      clearTimeout(timer);
      clearInterval(poll);
      resolve();
    }
    b.wake = done;
    if (gone()) done();
  });
  if (bound === b) boundEmpty(gone() ? "field left" : "held");
  return b.emptied ?? "held";
}
