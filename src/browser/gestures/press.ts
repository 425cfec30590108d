// focus and press: the focus given to an element, and keys pressed on it (it takes the focus first,
// as WebDriver's typing does) or, without a selector, on whatever has the focus.
import { z } from "zod";
import { badInput } from "../../errors.ts";
import { parseKeys } from "../../grid/keys.ts";
import { delivered } from "../landing.ts";
import { locate, type Selector } from "../selectors.ts";
import { defineGesture, needsSelector, selectorField } from "./gesture.ts";

export const focus = defineGesture({
  actions: ["focus"],
  fields: { selector: selectorField },
  docs: "focus: the focus to the element, as a script's focus() gives it.",
  check: needsSelector,
  async run({ page, input, press }) {
    const el = await locate(page, input.selector as Selector, { timeout: input.timeout, visible: true });
    press.before = page.held.navigationCount;
    await page.callIn(el.context, "focusOn", el).catch((err: unknown) => delivered(page, err));
    return undefined;
  },
});

export const press = defineGesture({
  actions: ["press"],
  fields: {
    selector: selectorField,
    keys: z.string().max(1000).optional().describe('press: "Enter", "Control+a".').meta({
      docs: 'press only: keys separated by spaces, each a character or a name, with held modifiers joined by "+": "Enter", "Control+a", "Shift+Tab", "Tab Tab Enter".',
    }),
  },
  docs: 'press: keys such as "Enter", "Control+a" or "Tab Tab Enter", on the element, or without a selector on whatever has focus.',
  check(i, issue) {
    if (i.keys === undefined) issue("keys", 'must be given for press: the keys to press, e.g. "Enter"');
    else {
      const parsed = parseKeys(i.keys);
      if ("problem" in parsed) issue("keys", `must be valid: it ${parsed.problem}`);
    }
  },
  async run({ page, input, press }) {
    const parsed = parseKeys(input.keys as string);
    if ("problem" in parsed) throw badInput(`field "keys" must be valid: it ${parsed.problem}`, "keys");
    const sel = input.selector;
    const el = sel ? await locate(page, sel, { timeout: input.timeout, visible: true }) : null;
    press.before = page.held.navigationCount;
    try {
      if (el) await page.callIn(el.context, "focusOn", el);
      await page.keys(el?.context ?? page.context, parsed.combos);
    } catch (err) {
      await delivered(page, err);
    }
    return undefined;
  },
});
