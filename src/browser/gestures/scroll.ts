import { delivered } from "../landing.ts";
import { locate, type Selector } from "../selectors.ts";
import {
  defineGesture,
  needsSelector,
  offsetField,
  pointOrSelector,
  selectorField,
  xField,
  yField,
} from "./gesture.ts";
import { aimed } from "./pointer.ts";

export const scroll = defineGesture({
  actions: ["scroll"],
  fields: { selector: selectorField, x: xField, y: yField, offset: offsetField },
  docs: "scroll: the element into view; with offset {x, y}, the wheel turned by that many pixels over the element (or at x and y), so its own scroll area scrolls (an inner box), not the page.",
  check(i, issue) {
    if (i.offset !== undefined) pointOrSelector(i, issue);
    else if (i.x !== undefined || i.y !== undefined)
      issue("offset", "must be given with x and y: how far to turn the wheel there");
    else needsSelector(i, issue);
  },
  async run({ page, input, press }) {
    const delta = input.offset;
    if (!delta) {
      await locate(page, input.selector as Selector, { timeout: input.timeout, visible: true, scroll: true });
      return undefined;
    }
    const at = await aimed(page, input);
    press.before = page.held.navigationCount;
    await page.wheel(at, delta).catch((err: unknown) => delivered(page, err));
    return undefined;
  },
});
