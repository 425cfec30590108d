// click, double_click, right_click and hover: the pointer at an element (its middle, or the visible
// part nearest it when something covers the middle) or at a point of the viewport. A click's press is
// checked where it lands: one another element took is stopped there, before the page sees it; hold
// keeps each press down that long. Hover, and a drag, along a path of points: measured here.
import { z } from "zod";
import { badInput } from "../../errors.ts";
import { MODIFIER_NAMES, modifierCodes } from "../../grid/keys.ts";
import type { Page } from "../../grid/page.ts";
import type { NodeRef } from "../../grid/page-call.ts";
import type { Landing, PointAt } from "../../grid/page-input.ts";
import type { Position } from "../../in-page/drag.ts";
import { coveredError, quoteSelector } from "../failures.ts";
import { delivered } from "../landing.ts";
import { locate, type PageMatch, type Selector, seek } from "../selectors.ts";
import {
  defineGesture,
  holdAtMost,
  holdField,
  pathField,
  pointOrSelector,
  selectorField,
  xField,
  yField,
} from "./gesture.ts";

interface Target extends PageMatch {
  els: NodeRef[];
  /** What covers the whole element, where the pointer would go (a click would reach it). */
  cover?: string | null;
  /** The frame that shows none of it (clipped, shrunk or covered where it is), when that is why. */
  frame?: string;
  /** The visible point aimed at, from the element's in-view centre. */
  dx?: number;
  dy?: number;
  /** Its press is watched already (asked with `watch`). */
  watched?: boolean;
}

/**
 * The element a pointer gesture goes to, in view, with the visible point aimed at (from its
 * middle); a 400 when something else covers all of it. `watch` (a click): the same call starts
 * watching where its press lands.
 */
export async function target(
  page: Page,
  selector: Selector,
  timeout: number,
  field?: string,
  watch = false,
): Promise<NodeRef & { dx: number; dy: number; watched?: boolean }> {
  const args = watch ? { watch } : {};
  const got = await seek<Target>(page, selector, { timeout, visible: true, field }, "pointerTarget", args);
  if (got.frame)
    throw badInput(
      `${quoteSelector(selector)} is in a frame that shows none of it: the frame ${got.frame} is clipped, shrunk or covered where the element is, so a click there would land on ${got.cover} around the frame, and nothing was clicked. Give it the keyboard instead (interact focus, then press Enter), or open the frame's own page (read_page lists its url)`,
      field ?? "selector",
    );
  if (got.cover !== undefined) throw coveredError({ selector, field }, got.cover);
  return { ...(got.els[0] as NodeRef), dx: got.dx ?? 0, dy: got.dy ?? 0, watched: got.watched === true };
}

/** The point, when it lies inside the tab's viewport; else a 400 giving the viewport's size. */
export async function inViewport(page: Page, x: number, y: number): Promise<{ x: number; y: number }> {
  const v = await page.callIn<{ width: number; height: number }>(page.where.tab, "innerViewport");
  if (x < v.width && y < v.height) return { x, y };
  throw badInput(
    `field "${x < v.width ? "y" : "x"}" is outside the viewport (${v.width}×${v.height}): give a point inside it, or scroll first`,
    x < v.width ? "y" : "x",
  );
}

type Point = { x: number; y: number };
type Frame = { origin: Point | null; to?: Point | null; view?: { width: number; height: number } };

/**
 * A path's points: from the top left of `el` (scrolled into view) when given, else of the tab's
 * viewport, then the point by `to` it ends at; and the browsing context the pointer moves in (the
 * tab, or the frame of another host that `el` sits in, its points then the frame's own). A 400
 * names a point outside the view.
 */
export async function pathPoints(
  page: Page,
  path: Point[],
  el: NodeRef | null,
  to: NodeRef | null,
  end: { position?: Position; offset?: Point },
  input: { selector?: Selector; target?: Selector },
): Promise<{ points: Point[]; context: string }> {
  // One document measures both together; across frames, each its own (the target first).
  const same = el && to && el.context === to.context;
  const there = to && !same ? await page.callIn<Frame>(to.context, "pathFrame", null, to, end) : null;
  const here = el ? await page.callIn<Frame>(el.context, "pathFrame", el, same ? to : null, end) : null;
  if (there?.view)
    throw badInput(
      `${quoteSelector(input.target)} is in a frame of another host${el ? " than selector's" : ""}: give as selector an element of that frame to measure path from`,
      "target",
    );
  const origin = here ? here.origin : { x: 0, y: 0 };
  if (!origin) throw badInput(`${quoteSelector(input.selector)} has no box to measure path from`, "selector");
  const ending = same ? here?.to : there?.to;
  if (to && !ending)
    throw badInput(
      `the drag's end by ${quoteSelector(input.target)} lies outside the window: give a position or an offset inside it`,
      input.target && end.offset ? "offset" : "target",
    );
  const points = path.map((p) => ({ x: origin.x + p.x, y: origin.y + p.y }));
  const v =
    here?.view ?? (await page.callIn<{ width: number; height: number }>(page.where.tab, "innerViewport"));
  const where = here?.view ? "its frame" : "the viewport";
  points.forEach((p, i) => {
    if (p.x < 0 || p.y < 0 || p.x >= v.width || p.y >= v.height)
      throw badInput(
        `field "path" point ${i + 1} (${path[i]?.x}, ${path[i]?.y}) falls at ${p.x}, ${p.y}, outside ${where} (${v.width}×${v.height})${el ? ", measured from the element's top left" : ""}: give points inside it`,
        "path",
      );
  });
  const context = here?.view && el ? el.context : page.where.tab;
  return { points: ending ? [...points, ending] : points, context };
}

/**
 * Clicks `count` times at `at` with `button` and held `modifiers`. When `at` is an element, the
 * press is watched where it lands: one that another element took is stopped there (the page gets
 * no click) and is a 400 naming what took it and its ref. `landing`: answers where the page is
 * after it (for `landed`), read with the check.
 */
export async function clickChecked(
  page: Page,
  at: PointAt,
  opts: {
    button?: number;
    count: number;
    modifiers: string[];
    selector?: Selector;
    holdMs?: number;
    landing?: boolean;
  },
): Promise<Landing | undefined> {
  const { selector, ...click } = opts;
  const seen = await page.click(at, { ...click, checked: true });
  // No press reached the element's document at all: it went to a page around its frame.
  if (seen.pressed === false) {
    throw badInput(
      `${quoteSelector(selector)} did not get the click: the press landed outside its frame (one clipped, shrunk or covered where the element is), so the page never saw it. Give it the keyboard instead (interact focus, then press Enter), or open the frame's own page (read_page lists its url)`,
      "selector",
    );
  }
  if (seen.took) {
    throw badInput(
      `${quoteSelector(selector)} did not get the click: the press landed on ${seen.took}, so it was stopped before the page saw it. Call read_page and act on what shows there now${seen.ref ? ` (that element is {"ref": "${seen.ref}"})` : ""}, or wait for the page to settle`,
      "selector",
    );
  }
  return seen.landing;
}

/** Where the pointer goes: the point given, else the element's. */
export async function aimed(
  page: Page,
  i: { selector?: Selector; x?: number; y?: number; timeout: number },
  watch = false,
): Promise<PointAt> {
  return i.x !== undefined && i.y !== undefined
    ? await inViewport(page, i.x, i.y)
    : await target(page, i.selector as Selector, i.timeout, undefined, watch);
}

export const clicks = defineGesture({
  actions: ["click", "double_click", "right_click"],
  fields: {
    selector: selectorField,
    count: z.number().int().min(1).max(3).optional().meta({
      docs: "click, double_click, right_click: how many clicks in a row (1–3; double_click's default is 2); 3 is a triple click, which selects a paragraph.",
    }),
    modifiers: z.array(z.enum(MODIFIER_NAMES)).max(4).optional().describe("click: keys held.").meta({
      docs: "click, double_click, right_click: keys held during the click (the page sees ctrlKey...).",
    }),
    x: xField,
    y: yField,
    hold: holdField,
  },
  docs: "click, double_click, right_click: on the element, or at x and y, a point of the tab's viewport, instead of a selector; with modifiers held during the click, count (3: a triple click) and hold (seconds each press is held: press-and-hold buttons). A click aims at the element's middle, or at the visible part nearest it when something covers the middle; the press is checked where it lands, and one another element takes (an overlay, a parent after a hover swapped the element) is stopped before the page sees it: a 400 names what took it and its ref. In a frame cut to a sliver (clipped, shrunk or covered) it aims at the part that shows; none showing, or a press that landed outside the element's frame, is a 400, never a success.",
  check: [pointOrSelector, holdAtMost],
  async run({ page, input, press }) {
    const at = await aimed(page, input, true);
    const count = input.count ?? (input.action === "double_click" ? 2 : 1);
    const button = input.action === "right_click" ? 2 : 0;
    const modifiers = modifierCodes(input.modifiers ?? []);
    const holdMs = (input.hold ?? 0) * 1000;
    const { selector } = input;
    press.before = page.held.navigationCount;
    press.read = await clickChecked(page, at, {
      button,
      count,
      modifiers,
      selector,
      holdMs,
      landing: true,
    }).catch((err: unknown) => delivered(page, err));
    return undefined;
  },
});

export const hover = defineGesture({
  actions: ["hover"],
  fields: { selector: selectorField, x: xField, y: yField, path: pathField },
  docs: "hover: the pointer over the element, or at x and y; or through path's points in turn, unpressed (from selector's top left, or the viewport's).",
  check(i, issue) {
    if (i.path === undefined) pointOrSelector(i, issue);
    else if (i.x !== undefined || i.y !== undefined)
      issue(i.x === undefined ? "y" : "x", "must not come with path: give the point in path");
  },
  async run({ page, input, press }) {
    if (input.path) {
      const path = input.path;
      const sel = input.selector;
      const el = sel ? await locate(page, sel, { timeout: input.timeout, visible: true }) : null;
      const { points, context } = await pathPoints(page, path, el, null, {}, input);
      press.before = page.held.navigationCount;
      await page.stroke(context, points, { press: false }).catch((err: unknown) => delivered(page, err));
      return undefined;
    }
    const at = await aimed(page, input);
    press.before = page.held.navigationCount;
    await page.hover(at).catch((err: unknown) => delivered(page, err));
    return undefined;
  },
});
