// The pointer gestures interact aims with the page library's help (in-page/pointer.ts): a click
// whose press is checked where it lands, a drag that walks to its end in steps, and a text
// selection dragged from its first character to its last.
import { badInput } from "../errors.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef } from "../grid/page-call.ts";
import { clickActions, type PointAt, pathActions, withModifiers } from "../grid/page-input.ts";
import type { PageLib } from "../in-page/index.ts";
import type { Position } from "../in-page/pointer.ts";
import { quoteSelector } from "./failures.ts";
import type { Selector } from "./selectors.ts";

type Point = { x: number; y: number };

const WATCH = (L: PageLib, el: Element) => L.hitWatch(el);
const SEEN = (L: PageLib) => L.hitSeen();

/**
 * Clicks `count` times at `at` with `button` and held `modifiers`. When `at` is an element, the
 * press is watched where it lands: one that another element took is stopped there (the page gets
 * no click) and is a 400 naming what took it and its ref.
 */
export async function clickChecked(
  page: Page,
  at: PointAt,
  opts: { button?: number; count: number; modifiers: string[]; selector?: Selector },
): Promise<void> {
  const sources = withModifiers(clickActions(at, opts), opts.modifiers);
  if (!("sharedId" in at)) {
    await page.perform(page.where.tab, sources);
    return;
  }
  await page.callIn(at.context, WATCH, at);
  await page.perform(at.context, sources);
  // A click that navigated or opened a dialog was the element's: nothing is left to read.
  const seen = await page.glance<{ took?: string; ref?: string }>(at.context, SEEN).catch(() => null);
  if (seen?.took) {
    throw badInput(
      `${quoteSelector(opts.selector)} did not get the click: the press landed on ${seen.took}, so it was stopped before the page saw it. Call read_page and act on what shows there now${seen.ref ? ` (that element is {"ref": "${seen.ref}"})` : ""}, or wait for the page to settle`,
      "selector",
    );
  }
}

interface Ends {
  from?: Point;
  to?: Point;
  problem?: string;
}

const DRAG_ENDS = (
  L: PageLib,
  from: Element,
  to: Element | null,
  end: { point?: Point; position?: Position; offset?: Point },
) => L.dragEnds(from, to, end);

/** A pointer drag from `from` to a target (at a position or offset) or to a viewport point, in steps. */
export async function dragTo(
  page: Page,
  from: NodeRef,
  to: NodeRef | null,
  end: { point?: Point; position?: Position; offset?: Point },
  input: { selector?: Selector; target?: Selector },
): Promise<void> {
  const ends = await page.callIn<Ends>(from.context, DRAG_ENDS, from, to, end);
  if (ends.problem || !ends.from || !ends.to) {
    const field = ends.problem === "from" ? "selector" : ends.problem === "outside" ? "offset" : "target";
    const what =
      ends.problem === "from"
        ? `${quoteSelector(input.selector)} has no box in view to press on`
        : `the drag's end by ${quoteSelector(input.target)} lies outside the window: give a position or an offset inside it`;
    throw badInput(what, field);
  }
  // Points of the tab's viewport (a frame's element's too): the pointer moves over the tab.
  await page.perform(page.where.tab, [pathActions(ends.from, ends.to)]);
}

type Span = { from?: Point; to?: Point; text?: string; field?: string; problem?: string };

const TEXT_SPAN = (L: PageLib, a: Element, b: Element, at: string | null, bt: string | null) =>
  L.textSpan(a, b, at, bt);
const TEXT_SELECTED = (L: PageLib) => L.textSelected();

/**
 * Selects text as a hand does: a press on the first character, a drag to the last, a release; the
 * selection is then made exact if the pointer's ended a character off. `startText`, `endText`:
 * the words matched inside `start` and `end` (a contained text match), else their whole text.
 */
export async function selectText(
  page: Page,
  start: NodeRef,
  end: NodeRef,
  words: { start: string | null; end: string | null },
  input: { selector?: Selector; target?: Selector },
): Promise<string> {
  if (start.context !== end.context)
    throw badInput("selector and target are in different frames: select text within one document", "target");
  const span = await page.callIn<Span>(start.context, TEXT_SPAN, start, end, words.start, words.end);
  if (span.field !== undefined) return span.field;
  if (!span.from || !span.to)
    throw badInput(`${quoteSelector(input.selector)} shows no text to select`, "selector");
  await page.perform(page.where.tab, [pathActions(span.from, span.to)]);
  await page.callIn<boolean>(start.context, TEXT_SELECTED);
  return span.text ?? "";
}
