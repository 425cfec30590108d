// Page side: whether what the walk meets can be seen by a person, beyond display and visibility:
// painted over by an opaque element (a modal's backdrop, a box placed on top of it). The browser's
// own hit test says what is on top at a point; only what is in the viewport can be asked, so content
// out of view counts as seen. A cover that stays put while the page scrolls under it (a sticky header,
// a cookie bar: fixed or sticky, less than half the viewport) hides nothing the page cannot scroll
// out from under it, and is not counted.

const PAINTED = new Set(["IMG", "VIDEO", "CANVAS", "IFRAME", "EMBED", "OBJECT", "svg", "SVG"]);

function viewOf(doc: Document): Window {
  return doc.defaultView ?? window;
}

/** The middle of `r`, kept inside the viewport; null when `r` is out of it or has no area. */
function pointIn(r: DOMRect, view: Window): [number, number] | null {
  if (r.width <= 0 || r.height <= 0) return null;
  const left = Math.max(r.left, 0);
  const top = Math.max(r.top, 0);
  const right = Math.min(r.right, view.innerWidth);
  const bottom = Math.min(r.bottom, view.innerHeight);
  if (right <= left || bottom <= top) return null;
  return [(left + right) / 2, (top + bottom) / 2];
}

function alpha(color: string): number {
  if (color === "transparent") return 0;
  const m = /rgba?\(([^)]*)\)/.exec(color);
  if (!m) return 1;
  const parts = (m[1] as string).split(/[,\s/]+/).filter(Boolean);
  return parts.length > 3 ? Number.parseFloat(parts[3] as string) : 1;
}

/** Whether `el` paints a solid surface (a background, a picture), not only text over what is below. */
function solid(el: Element): boolean {
  const s = viewOf(el.ownerDocument).getComputedStyle(el);
  if (Number.parseFloat(s.opacity) < 0.9) return false;
  return PAINTED.has(el.tagName) || alpha(s.backgroundColor) >= 0.9 || s.backgroundImage !== "none";
}

/** Whether `el` or an ancestor stays put while the page scrolls (fixed or sticky) and is smallish. */
function scrollCover(el: Element, view: Window): boolean {
  for (let e: Element | null = el; e; e = e.parentElement) {
    const pos = view.getComputedStyle(e).position;
    if (pos !== "fixed" && pos !== "sticky") continue;
    const r = e.getBoundingClientRect();
    return r.width * r.height < (view.innerWidth * view.innerHeight) / 2;
  }
  return false;
}

/** Whether `a` holds `b`, across shadow roots. */
function holds(a: Node, b: Node): boolean {
  for (let n: Node | null = b; n; n = n.parentNode ?? (n as ShadowRoot).host ?? null)
    if (n === a) return true;
  return false;
}

/**
 * The element painted over `target` at the middle of `r` (its box, or a text's), or null: nothing
 * opaque is on top there, or the point is out of the viewport.
 */
export function coverAt(target: Element, r: DOMRect): Element | null {
  const view = viewOf(target.ownerDocument);
  const p = pointIn(r, view);
  if (!p) return null;
  const root = target.getRootNode() as Document | ShadowRoot;
  const hit = root.elementFromPoint(p[0], p[1]);
  if (!hit || hit === target || holds(target, hit) || holds(hit, target)) return null;
  // What lies between the hit and what it shares with the target paints over it: one solid is enough.
  for (let e: Element | null = hit; e && !holds(e, target); e = e.parentElement) {
    if (solid(e)) return scrollCover(e, view) ? null : e;
  }
  return null;
}

/** The element painted over `el`, if any (see coverAt). */
export function coveredBy(el: Element): Element | null {
  return coverAt(el, el.getBoundingClientRect());
}

/** Whether a text node's text is painted over (its first line's box). */
export function textCovered(text: Text): boolean {
  const parent = text.parentElement;
  if (!parent) return false;
  const range = parent.ownerDocument.createRange();
  range.selectNodeContents(text);
  const first = range.getClientRects()[0];
  return !!first && coverAt(parent, first) !== null;
}

/** Whether any part of `el`'s box is in its viewport (its text may be asked whether it is covered). */
export function inView(el: Element): boolean {
  return pointIn(el.getBoundingClientRect(), viewOf(el.ownerDocument)) !== null;
}

/**
 * What paints over a field, said for a message ("covered by <div#cookie-wall> …"), or undefined. A
 * field out of view is brought into it first (typing would bring it there anyway).
 */
export function coverOf(el: Element, describe: (e: Element) => string): string | undefined {
  if (!inView(el)) el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  const cover = coveredBy(el);
  return cover ? `covered by ${describe(cover)}` : undefined;
}
