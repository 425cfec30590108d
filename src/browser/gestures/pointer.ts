// click, double_click, right_click and hover: the pointer at an element (its middle, or the visible
// part nearest it when something covers the middle) or at a point of the viewport. A click's press is
// checked where it lands: one another element took is stopped there, before the page sees it; hold
// keeps each press down that long. Hover, and a drag, along a path of points: measured here.
import { z } from "zod";
import { badInput } from "../../errors.ts";
import { MODIFIER_NAMES, modifierCodes } from "../../grid/keys.ts";
import type { Page } from "../../grid/page.ts";
import type { NodeRef } from "../../grid/page-call.ts";
import type { PointAt } from "../../grid/page-input.ts";
import type { Position } from "../../in-page/drag.ts";
import { quoteSelector } from "../failures.ts";
import { delivered } from "../landing.ts";
import { locate, query, type Selector } from "../selectors.ts";
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

/**
 * The element a pointer gesture goes to, in view, with the visible point aimed at (from its
 * middle); a 400 when something else covers all of it (the page's `aim`).
 */
export async function target(
  page: Page,
  selector: Selector,
  timeout: number,
): Promise<NodeRef & { dx: number; dy: number }> {
  return page.aim(query(page, selector, { timeout, visible: true }));
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

/** Where the pointer goes: the point given, else the element's. */
export async function aimed(
  page: Page,
  i: { selector?: Selector; x?: number; y?: number; timeout: number },
): Promise<PointAt> {
  return i.x !== undefined && i.y !== undefined
    ? await inViewport(page, i.x, i.y)
    : await target(page, i.selector as Selector, i.timeout);
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
  // The page locates, aims, presses, checks where the press landed and reads where it is after it.
  async run({ page, input, press }) {
    const { x, y, selector, timeout } = input;
    const at =
      x !== undefined && y !== undefined
        ? await inViewport(page, x, y)
        : query(page, selector as Selector, { timeout, visible: true });
    press.read = await page
      .click(at, {
        button: input.action === "right_click" ? 2 : 0,
        count: input.count ?? (input.action === "double_click" ? 2 : 1),
        modifiers: modifierCodes(input.modifiers ?? []),
        holdMs: (input.hold ?? 0) * 1000,
        checked: true,
        landing: true,
        press,
      })
      .catch((err: unknown) => delivered(page, err));
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
