// select_text: text selected as a hand does: a press on its first character, a drag to its last, a
// release; the whole text of the element, or from a text match to that of target.
import { z } from "zod";
import { badInput } from "../../errors.ts";
import type { Page } from "../../grid/page.ts";
import type { NodeRef } from "../../grid/page-call.ts";
import { quoteSelector } from "../failures.ts";
import { delivered } from "../landing.ts";
import { locate, type Selector } from "../selectors.ts";
import { defineGesture, needsSelector, selectorField, targetField } from "./gesture.ts";

type Point = { x: number; y: number };

type Span = { from?: Point; to?: Point; own?: boolean; text?: string; field?: string; problem?: string };

/**
 * Selects text as a hand does: a press on the first character, a drag to the last, a release; the
 * selection is then made exact if the pointer's ended a character off. `startText`, `endText`:
 * the words matched inside `start` and `end` (a contained text match), else their whole text.
 */
async function selectTextSpan(
  page: Page,
  start: NodeRef,
  end: NodeRef,
  words: { start: string | null; end: string | null },
  input: { selector?: Selector; target?: Selector },
): Promise<string> {
  if (start.context !== end.context)
    throw badInput("selector and target are in different frames: select text within one document", "target");
  const span = await page.callIn<Span>(start.context, "textSpan", start, end, words.start, words.end);
  if (span.field !== undefined) return span.field;
  if (!span.from || !span.to)
    throw badInput(`${quoteSelector(input.selector)} shows no text to select`, "selector");
  await page.drag(span.own ? start.context : page.where.tab, span.from, span.to);
  await page.callIn<boolean>(start.context, "textSelected");
  return span.text ?? "";
}

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export const selectText = defineGesture({
  actions: ["select_text"],
  fields: { selector: selectorField, target: targetField },
  output: { selection: z.string().optional().describe("select_text: the text now selected.") },
  docs: "select_text: the whole text of selector, or from a text match to that of target (a press on the first character, a drag to the last).",
  check: needsSelector,
  async run({ page, input, press }) {
    const { timeout } = input;
    const sel = input.selector as Selector;
    const start = await locate(page, sel, { timeout, visible: true });
    const end = input.target
      ? await locate(page, input.target, { timeout, visible: true, field: "target" })
      : start;
    // A contained text match selects those words; an exact one, or any other selector, the whole element.
    const words = (s?: Selector) => (s?.text !== undefined && s.exact === false ? s.text : null);
    const span = { start: words(sel), end: words(input.target ?? sel) };
    let selection: string | undefined;
    press.before = page.held.navigationCount;
    try {
      selection = cut(await selectTextSpan(page, start, end, span, input), 2000);
    } catch (err) {
      await delivered(page, err);
    }
    return selection === undefined ? {} : { selection };
  },
});
