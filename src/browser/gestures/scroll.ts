// scroll: the element scrolled into view (the middle of the window).
import { locate, type Selector } from "../selectors.ts";
import { defineGesture, needsSelector, selectorField } from "./gesture.ts";

export const scroll = defineGesture({
  actions: ["scroll"],
  fields: { selector: selectorField },
  docs: "scroll: the element into view.",
  check: needsSelector,
  async run({ page, input }) {
    await locate(page, input.selector as Selector, { timeout: input.timeout, visible: true, scroll: true });
    return undefined;
  },
});
