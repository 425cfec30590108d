// drag: a press on the element, a walk in small steps to its end (a target's middle, a point by it,
// or a point of the viewport), a release there; sortable lists follow. Onto a target with HTML5
// drag and drop (draggable=true), which WebDriver's pointer cannot complete in Chromium, the page's
// own drag events are fired from the sandbox instead. Or along a path: a press at its first point
// (from the element's top left, or the viewport's), a walk through each, a release at its last or at
// a target (pointer.ts measures it). hold: a pause after the press, before the first move.
import { z } from "zod";
import { badInput } from "../../errors.ts";
import type { Page } from "../../grid/page.ts";
import type { NodeRef } from "../../grid/page-call.ts";
import type { Position } from "../../in-page/drag.ts";
import { quoteSelector } from "../failures.ts";
import { delivered } from "../landing.ts";
import { locate, type Selector } from "../selectors.ts";
import {
  defineGesture,
  holdAtMost,
  holdField,
  needsSelector,
  offsetField,
  pathField,
  selectorField,
  targetField,
  xField,
  yField,
} from "./gesture.ts";
import { inViewport, pathPoints } from "./pointer.ts";

type Point = { x: number; y: number };

interface Ends {
  from?: Point;
  to?: Point;
  /** The ends are points of the element's own frame (one of another host), not of the tab. */
  own?: boolean;
  problem?: string;
}

/** A pointer drag from `from` to a target (at a position or offset) or to a viewport point, in steps. */
async function dragTo(
  page: Page,
  from: NodeRef,
  to: NodeRef | null,
  end: { point?: Point; position?: Position; offset?: Point },
  input: { selector?: Selector; target?: Selector },
  holdMs = 0,
): Promise<void> {
  const ends = await page.callIn<Ends>(from.context, "dragEnds", from, to, end);
  if (ends.problem === "frame")
    throw badInput(
      `${quoteSelector(input.selector)} is in a frame of another host, and x and y are a point of the tab: end the drag on a target, or give a path from the element's top left`,
      "x",
    );
  if (ends.problem || !ends.from || !ends.to) {
    const field = ends.problem === "from" ? "selector" : ends.problem === "outside" ? "offset" : "target";
    const what =
      ends.problem === "from"
        ? `${quoteSelector(input.selector)} has no box in view to press on`
        : `the drag's end by ${quoteSelector(input.target)} lies outside the window: give a position or an offset inside it`;
    throw badInput(what, field);
  }
  // Points of the tab's viewport (a frame's element's too): the pointer moves over the tab; in a
  // frame of another host, points of that frame, the pointer moving in its context.
  await page.drag(ends.own ? from.context : page.where.tab, ends.from, ends.to, holdMs);
}

export const drag = defineGesture({
  actions: ["drag"],
  fields: {
    selector: selectorField,
    target: targetField,
    position: z.enum(["before", "after", "top", "bottom"]).optional().meta({
      docs: "drag with target: end just above the target (before), just below it (after), or just inside its top or bottom edge (top, bottom); a sortable item lands before or after the target, or first or last in a list.",
    }),
    offset: offsetField,
    x: xField,
    y: yField,
    path: pathField,
    hold: holdField,
  },
  docs: "drag: from the element's middle onto target, at a position or offset by it, or to x and y; or along path, points from selector's top left (or the viewport's), pressed at the first, released at the last or at target: a stroke on a canvas, a textarea's corner; hold: seconds pressed before moving. It walks in small steps, so sortable lists follow.",
  check(i, issue) {
    const point = i.x !== undefined || i.y !== undefined;
    if (i.path !== undefined) {
      if (point) issue(i.x === undefined ? "y" : "x", "must not come with path: end the path there instead");
      else if (i.target === undefined && i.path.length < 2)
        issue("path", "must hold at least two points, or come with target (the element to end on)");
    } else {
      needsSelector(i, issue);
      if (point && (i.x === undefined || i.y === undefined))
        issue(i.x === undefined ? "x" : "y", "must be given with the other coordinate");
      else if (point && i.target !== undefined)
        issue("target", "must not come with x and y: give one or the other");
      else if (!point && i.target === undefined)
        issue("target", "must be given for drag: the element to drop onto, x and y, or a path");
    }
    for (const f of ["position", "offset"] as const)
      if (i[f] !== undefined && i.target === undefined)
        issue(f, "must only come with action drag and a target");
    if (i.position !== undefined && i.offset !== undefined)
      issue("offset", "must not come with position: give one or the other");
    holdAtMost(i, issue);
  },
  async run({ page, input, press }) {
    const { timeout } = input;
    const holdMs = (input.hold ?? 0) * 1000;
    const end = { position: input.position, offset: input.offset };
    if (input.path) {
      const el = input.selector ? await locate(page, input.selector, { timeout, visible: true }) : null;
      const to = input.target
        ? await locate(page, input.target, { timeout, visible: true, field: "target" })
        : null;
      const { points, context } = await pathPoints(page, input.path, el, to, end, input);
      press.before = page.held.navigationCount;
      await page
        .stroke(context, points, { press: true, holdMs })
        .catch((err: unknown) => delivered(page, err));
      return undefined;
    }
    const from = await locate(page, input.selector as Selector, { timeout, visible: true, scroll: true });
    const to = input.target
      ? await locate(page, input.target, { timeout, visible: true, field: "target" })
      : null;
    const point = to ? undefined : await inViewport(page, input.x as number, input.y as number);
    if (
      to &&
      !input.position &&
      !input.offset &&
      !holdMs &&
      (await page.callIn<boolean>(from.context, "html5Drag", from, to))
    )
      return undefined;
    press.before = page.held.navigationCount;
    await dragTo(page, from, to, { ...end, point }, input, holdMs).catch((err: unknown) =>
      delivered(page, err),
    );
    return undefined;
  },
});
