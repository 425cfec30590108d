// Page side: the points a drag passes, in the tab's viewport (or, under a frame of another host,
// that frame's): its two ends (the middle of what is dragged, and a target's middle or a point by
// it), and where a path's points are measured from.

import { centre, climbs, inTab, type Point, viewOf } from "./pointer.ts";

export type Position = "before" | "after" | "top" | "bottom";

/**
 * A drag's two ends in viewport points: the middle of `from` (scrolled to the middle of the view),
 * and the end: a point of the view, the target's middle, or a point by the target: `before` and
 * `after` just outside its top and bottom edges, `top` and `bottom` just inside them, or `offset`
 * from its top left. When a frame of another host sits between `from` and the tab, both ends are
 * points of its frame (`own`), where the pointer then moves; a point of the tab cannot end it then.
 */
export function dragEnds(
  from: Element,
  to: Element | null,
  end: { point?: Point; position?: Position; offset?: Point },
): { from: Point; to: Point; own: boolean } | { problem: string } {
  from.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  const a = centre(from);
  if (!a) return { problem: "from" };
  const own = !climbs(viewOf(from));
  if (!to) {
    if (own && end.point) return { problem: "frame" };
    return end.point ? { from: inTab(a, viewOf(from)), to: end.point, own } : { problem: "to" };
  }
  intoView(to);
  return dragEndsInView(from, to, end, own);
}

/** A drag's target out of view: scrolled just into it (the handle may leave the middle then). */
function intoView(to: Element): void {
  const r = to.getBoundingClientRect();
  const v = viewOf(to);
  if (r.bottom < 0 || r.top > v.innerHeight || r.right < 0 || r.left > v.innerWidth)
    to.scrollIntoView({ block: "nearest", inline: "nearest", behavior: "instant" });
}

function dragEndsInView(
  from: Element,
  to: Element,
  end: { position?: Position; offset?: Point },
  own: boolean,
): { from: Point; to: Point; own: boolean } | { problem: string } {
  const a = centre(from);
  if (!a) return { problem: "from" };
  const p = endPoint(to, end, own);
  if (!p) return { problem: "outside" };
  return { from: own ? a : inTab(a, viewOf(from)), to: p, own };
}

/**
 * The point by `to` a drag ends at (of the tab's viewport; `own`: of its frame's), or null when it
 * lies outside its window.
 */
function endPoint(to: Element, end: { position?: Position; offset?: Point }, own = false): Point | null {
  const r = to.getBoundingClientRect();
  const gap = Math.max(2, Math.min(8, Math.floor(r.height / 4)));
  let p: Point;
  if (end.offset) p = { x: r.left + end.offset.x, y: r.top + end.offset.y };
  else if (end.position === "before") p = { x: r.left + r.width / 2, y: r.top - gap };
  else if (end.position === "after") p = { x: r.left + r.width / 2, y: r.bottom + gap };
  else if (end.position === "top") p = { x: r.left + r.width / 2, y: r.top + gap };
  else if (end.position === "bottom") p = { x: r.left + r.width / 2, y: r.bottom - gap };
  else p = { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  const v = viewOf(to);
  p = { x: Math.round(p.x), y: Math.round(p.y) };
  if (p.x < 0 || p.y < 0 || p.x >= v.innerWidth || p.y >= v.innerHeight) return null;
  return own ? p : inTab(p, v);
}

/**
 * Where a path's points are measured from, in the tab's viewport: the element's top left (scrolled
 * into view first, the least scroll that shows it), or null when it has no box; and, with `to`, the
 * point by that target where the path ends (null: outside its window). When a frame of another
 * host sits between the element and the tab, the points are its frame's own, and `view` is that
 * frame's size (the pointer then moves in the frame's browsing context, BiDi adding its place).
 */
export function pathFrame(
  el: Element | null,
  to: Element | null,
  end: { position?: Position; offset?: Point },
): { origin: Point | null; to?: Point | null; view?: { width: number; height: number } } {
  const w = viewOf(el ?? to ?? document.documentElement);
  const own = !climbs(w);
  const at = (e: Element) => {
    const r = e.getBoundingClientRect();
    return own ? { x: Math.round(r.left), y: Math.round(r.top) } : inTab({ x: r.left, y: r.top }, w);
  };
  let origin: Point | null = { x: 0, y: 0 };
  if (el) {
    el.scrollIntoView({ block: "nearest", inline: "nearest", behavior: "instant" });
    origin = el.getClientRects()[0] ? at(el) : null;
  }
  const view = own ? { view: { width: w.innerWidth, height: w.innerHeight } } : {};
  if (!to) return { origin, ...view };
  intoView(to);
  // The target's scroll may have moved the element: measured again.
  if (el && origin) origin = at(el);
  return { origin, to: endPoint(to, end, own), ...view };
}
