// Page side: where a pointer gesture goes and what it met. A point of the element that the pointer
// would reach (its middle, else a visible part of it), the check at the press of what took it, and
// the range select_text selects (a drag's points: drag.ts). Points are CSS pixels of the element's
// viewport; offsets are from its in-view centre (what a BiDi element origin means).

import { rootOf } from "./hinted.ts";
import { describe } from "./hints.ts";
import { afterGesture } from "./leaving.ts";
import { plainOf } from "./plain.ts";
import { refFor } from "./refs.ts";
import { contains } from "./selectors.ts";

export type Point = { x: number; y: number };

export function viewOf(el: Element): Window {
  return el.ownerDocument.defaultView ?? window;
}

/**
 * A point of a frame's viewport as a point of the tab's, through the same-origin frames it sits
 * in (the pointer moves over the tab's viewport); a cross-origin parent ends the climb.
 */
export function inTab(p: Point, view: Window): Point {
  let { x, y } = p;
  let w = view;
  try {
    while (w.parent !== w && w.frameElement) {
      const f = w.frameElement as HTMLElement;
      const r = f.getBoundingClientRect();
      const s = (w.parent as Window).getComputedStyle(f);
      x += r.left + f.clientLeft + Number.parseFloat(s.paddingLeft || "0");
      y += r.top + f.clientTop + Number.parseFloat(s.paddingTop || "0");
      w = w.parent as Window;
    }
  } catch {
    // a parent of another origin: the point stays as far as it got
  }
  return { x: Math.round(x), y: Math.round(y) };
}

/** Whether every frame around `view` can be read, so inTab reaches the tab's viewport. */
export function climbs(view: Window): boolean {
  try {
    for (let w = view; w.parent !== w; w = w.parent as Window) if (!w.frameElement) return false;
    return true;
  } catch {
    return false;
  }
}

/** The in-view centre of the element's first box (WebDriver's), or null when it has none in view. */
export function centre(el: Element): Point | null {
  const r = el.getClientRects()[0];
  if (!r) return null;
  const v = viewOf(el);
  const left = Math.max(0, Math.min(r.left, r.right));
  const right = Math.min(v.innerWidth, Math.max(r.left, r.right));
  const top = Math.max(0, Math.min(r.top, r.bottom));
  const bottom = Math.min(v.innerHeight, Math.max(r.top, r.bottom));
  if (right <= left || bottom <= top) return null;
  return { x: Math.floor((left + right) / 2), y: Math.floor((top + bottom) / 2) };
}

/**
 * What takes a point of a frame's viewport in the frames it sits in: true when each same-origin
 * parent's own hit test there finds the frame (the point shows through it), else the parent's
 * element that takes it (its frame clipped, shrunk or covered there) with that frame. A
 * cross-origin parent ends the climb (the check at the press tells then).
 */
function throughFrames(view: Window, p: Point): true | { top: Element; frame: Element } {
  let { x, y } = p;
  let w = view;
  try {
    while (w.parent !== w && w.frameElement) {
      const f = w.frameElement as HTMLElement;
      const parent = w.parent as Window;
      const r = f.getBoundingClientRect();
      const s = parent.getComputedStyle(f);
      x += r.left + f.clientLeft + Number.parseFloat(s.paddingLeft || "0");
      y += r.top + f.clientTop + Number.parseFloat(s.paddingTop || "0");
      const root = f.getRootNode() as Document | ShadowRoot;
      const inView = x >= 0 && y >= 0 && x < parent.innerWidth && y < parent.innerHeight;
      const top = inView ? root.elementFromPoint(x, y) : null;
      if (top !== f) return { top: top ?? parent.document.documentElement, frame: f };
      w = parent;
    }
  } catch {
    // a parent of another origin: the point is taken to show as far as it got
  }
  return true;
}

type Reach = true | { top: Element; frame?: Element };

function reaches(el: Element, x: number, y: number): Reach | null {
  const root = el.getRootNode() as Document | ShadowRoot;
  const top = root.elementFromPoint(x, y);
  if (!top) return null;
  if (!(contains(el, top) || el.shadowRoot?.contains(top))) return { top };
  return throughFrames(viewOf(el), { x, y });
}

/** Points spread over each of el's boxes in view, `n` by `m` a box (at most 10 boxes). */
function spread(el: Element, grid: (w: number, h: number) => [number, number]): Point[] {
  const v = viewOf(el);
  const points: Point[] = [];
  for (const r of Array.from(el.getClientRects()).slice(0, 10)) {
    const l = Math.max(0, r.left);
    const t = Math.max(0, r.top);
    const w = Math.min(v.innerWidth, r.right) - l;
    const h = Math.min(v.innerHeight, r.bottom) - t;
    if (w <= 0 || h <= 0) continue;
    const [n, m] = grid(w, h);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < m; j++)
        points.push({ x: Math.floor(l + (w * (i + 0.5)) / n), y: Math.floor(t + (h * (j + 0.5)) / m) });
  }
  return points;
}

/**
 * Where a pointer reaches the element (in view already): its middle when nothing covers it, else
 * the visible point nearest the middle, as an offset from the in-view centre; or what covers it
 * all (the thing at its middle), with the frame around it that shows none of it when that is why.
 * Points are checked through the element's frames too: a frame clipped or shrunk to a sliver shows
 * only part of it, and a point outside that part would land on the page around the frame.
 */
export function aim(el: Element): { dx: number; dy: number } | { cover: Element | null; frame?: Element } {
  const c = centre(el);
  if (!c) return { cover: null };
  const first = reaches(el, c.x, c.y);
  if (first === true) return { dx: 0, dy: 0 };
  const nearest = (points: Point[]) => {
    points.sort((a, b) => Math.hypot(a.x - c.x, a.y - c.y) - Math.hypot(b.x - c.x, b.y - c.y));
    for (const p of points) if (reaches(el, p.x, p.y) === true) return { dx: p.x - c.x, dy: p.y - c.y };
    return null;
  };
  // A 7 by 7 grid first; a frame showing a sliver of it takes a finer one (a point every 2 px or so,
  // at most 40 by 40): both only once the middle missed.
  const got =
    nearest(spread(el, () => [7, 7])) ??
    (first?.frame
      ? nearest(spread(el, (w, h) => [Math.min(40, Math.ceil(w / 2)), Math.min(40, Math.ceil(h / 2))]))
      : null);
  if (got) return got;
  return first?.frame ? { cover: first.top, frame: first.frame } : { cover: first?.top ?? null };
}

// ---- the press ------------------------------------------------------------------------------------

const PRESS_EVENTS = [
  "pointerdown",
  "mousedown",
  "pointerup",
  "mouseup",
  "click",
  "dblclick",
  "auxclick",
  "contextmenu",
];

interface Watch {
  el: Element;
  view: Window;
  took: Element | null;
  pressed: boolean;
  off: () => void;
}
let watching: Watch | null = null;

/**
 * Watches the next press in the element's window: the first press that lands outside the element
 * is stopped there (it and what follows it: release, click), so the page never sees a click the
 * agent did not aim; hitSeen says what took it.
 */
export function hitWatch(el: Element): void {
  watching?.off();
  const view = viewOf(el);
  const w: Watch = { el, view, took: null, pressed: false, off: () => undefined };
  const on = (e: Event) => {
    if (!e.isTrusted) return;
    if (!w.pressed && (e.type === "pointerdown" || e.type === "mousedown")) {
      w.pressed = true;
      let at = (e.composedPath()[0] ?? e.target) as Element | null;
      // A press inside a closed shadow root reaches the window as its host: the hints' root looks in.
      for (let i = 0; at && i < 10 && e instanceof MouseEvent; i++) {
        const closed = at.shadowRoot === null ? rootOf(at) : null;
        const deeper = closed?.elementFromPoint(e.clientX, e.clientY);
        if (!deeper || deeper === at) break;
        at = deeper;
      }
      if (at && at.nodeType === 1 && !contains(el, at) && !el.shadowRoot?.contains(at)) w.took = at;
    }
    if (w.took) {
      e.preventDefault();
      e.stopImmediatePropagation();
    }
  };
  for (const t of PRESS_EVENTS) view.addEventListener(t, on, true);
  // A gesture takes well under this: a watch whose reading never came ends on its own.
  const timer = setTimeout(() => w.off(), 15_000);
  w.off = () => {
    clearTimeout(timer);
    for (const t of PRESS_EVENTS) view.removeEventListener(t, on, true);
  };
  watching = w;
}

/**
 * What took the watched press instead of the element (described, with a ref), whether a press came
 * at all (absent: no watch here, as in the document a click navigated to), and stops watching.
 */
export function hitSeen(): { took?: string; ref?: string; pressed?: boolean } {
  const w = watching;
  watching = null;
  if (!w) return {};
  w.off();
  if (!w.took) return { pressed: w.pressed };
  const parent = contains(w.took, w.el)
    ? " (it holds the element: the element changed under the pointer, as an icon that swaps its picture on hover does)"
    : "";
  return { took: `${describe(w.took)}${parent}`, ref: refFor(w.took), pressed: true };
}

/** After a watched press in the agent's own document: hitSeen, and afterGesture's read, in one call. */
export function clickSeen(): ReturnType<typeof hitSeen> & ReturnType<typeof afterGesture> {
  return { ...hitSeen(), ...afterGesture() };
}

// ---- selecting text -------------------------------------------------------------------------------

function textNodes(el: Element): Text[] {
  const out: Text[] = [];
  const walker = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode())
    if ((n.textContent ?? "").trim()) out.push(n as Text);
  return out;
}

/** Where `needle` starts and ends among el's text nodes (case and runs of white space ignored). */
function locateText(
  el: Element,
  needle: string | null,
): { start: [Text, number]; end: [Text, number] } | null {
  const nodes = textNodes(el);
  const first = nodes[0];
  const last = nodes[nodes.length - 1];
  if (!first || !last) return null;
  const whole = {
    start: [first, 0] as [Text, number],
    end: [last, (last.textContent ?? "").length] as [Text, number],
  };
  if (!needle) return whole;
  // The text as one string, each character's node and offset beside it, white space runs as one.
  let flat = "";
  const at: [Text, number][] = [];
  for (const n of nodes) {
    const t = n.textContent ?? "";
    for (let i = 0; i < t.length; i++) {
      const ch = /\s/.test(t[i] as string) ? " " : (t[i] as string).toLowerCase();
      if (ch === " " && flat.endsWith(" ")) continue;
      flat += ch;
      at.push([n, i]);
    }
  }
  const want = needle.replace(/\s+/g, " ").trim().toLowerCase();
  const i = flat.indexOf(want);
  if (i < 0 || !want) return whole;
  const s = at[i] as [Text, number];
  const e = at[i + want.length - 1] as [Text, number];
  return { start: s, end: [e[0], e[1] + 1] };
}

/**
 * select_text's range: from the start of `start` (or of its text `startText` in it) to the end of
 * `end` (or of `endText`), as the two viewport points a pointer drags between to select it, and
 * the text it holds. A field's own text is selected in the field.
 */
export function textSpan(
  start: Element,
  end: Element,
  startText: string | null,
  endText: string | null,
): { from: Point; to: Point; own: boolean; text: string } | { field: string } | { problem: string } {
  if (start === end && (start.tagName === "INPUT" || start.tagName === "TEXTAREA")) {
    const f = start as HTMLInputElement;
    f.focus();
    f.select();
    // A password's value never comes back.
    return { field: f.type === "password" ? "[hidden]" : plainOf(f, f.value) };
  }
  const a = locateText(start, startText);
  const b = locateText(end, endText);
  if (!a || !b) return { problem: "no text" };
  const doc = start.ownerDocument;
  const range = doc.createRange();
  range.setStart(a.start[0], a.start[1]);
  range.setEnd(b.end[0], b.end[1]);
  if (range.collapsed) {
    range.setStart(b.start[0], b.start[1]);
    range.setEnd(a.end[0], a.end[1]);
  }
  (start as HTMLElement).scrollIntoView({ block: "center", inline: "nearest", behavior: "instant" });
  const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0 && r.height > 0);
  const first = rects[0];
  const last = rects[rects.length - 1];
  if (!first || !last) return { problem: "no box" };
  const from = { x: Math.floor(first.left) + 1, y: Math.floor(first.top + first.height / 2) };
  const to = { x: Math.ceil(last.right) - 1, y: Math.floor(last.top + last.height / 2) };
  current = range;
  const view = viewOf(start);
  // Under a frame of another host, points of that frame (`own`), where the pointer then moves.
  const own = !climbs(view);
  return {
    from: own ? from : inTab(from, view),
    to: own ? to : inTab(to, view),
    own,
    text: range.toString(),
  };
}

let current: Range | null = null;

/** After the pointer's drag: the selection made exact to the range when the pointer's was not. */
export function textSelected(): boolean {
  const range = current;
  current = null;
  if (!range) return false;
  const sel = range.startContainer.ownerDocument?.getSelection();
  if (!sel) return false;
  const want = range.toString().replace(/\s+/g, " ").trim();
  if (sel.toString().replace(/\s+/g, " ").trim() === want) return true;
  sel.setBaseAndExtent(range.startContainer, range.startOffset, range.endContainer, range.endOffset);
  return false;
}
