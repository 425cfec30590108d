// check and uncheck: a checkbox, radio button or switch (the element, a label's control, or the one
// box inside it) clicked until it holds the state asked; a styled one through its label.
import { z } from "zod";
import { badInput } from "../../errors.ts";
import type { NodeRef } from "../../grid/page-call.ts";
import { delivered } from "../landing.ts";
import { locate, type Selector } from "../selectors.ts";
import { defineGesture, needsSelector, selectorField } from "./gesture.ts";

interface Checkable {
  problem?: string;
  checked?: boolean;
  radio?: boolean;
  click?: NodeRef;
  label?: NodeRef | null;
  /** What covers `click`'s middle, when something does (the label then takes the click). */
  covered?: boolean;
}

export const check = defineGesture({
  actions: ["check", "uncheck"],
  fields: { selector: selectorField },
  output: { checked: z.boolean().optional().describe("check/uncheck: the state now.") },
  docs: "check or uncheck: a checkbox, radio button or switch (a styled one through its label).",
  check: needsSelector,
  async run({ page, input, press }) {
    const el = await locate(page, input.selector as Selector, { timeout: input.timeout });
    const want = input.action === "check";
    const q = JSON.stringify(input.selector);
    const c = await page.callIn<Checkable>(el.context, "checkable", el);
    if (c.problem) {
      const [tag, role] = c.problem.split(":");
      throw badInput(
        `${q} is a <${tag}>${role ? ` (${role})` : ""}, not a checkbox, radio button or switch`,
        "selector",
      );
    }
    if (c.checked === want) return { checked: want };
    if (!want && c.radio)
      throw badInput(
        `${q} is a radio button: it cannot be unchecked; check another option of its group instead`,
        "selector",
      );
    const click = c.covered && c.label ? c.label : c.click;
    if (!click) throw badInput(`${q} is hidden and has no visible label to click`, "selector");
    // A styled checkbox often sits under its own label's decoration: the label takes the click.
    let now: boolean | undefined;
    press.before = page.held.navigationCount;
    try {
      await page.click(click);
      now = await page.callIn<boolean>(el.context, "readChecked", el);
    } catch (err) {
      await delivered(page, err);
    }
    if (now === undefined) return {};
    if (now !== want)
      throw badInput(
        `clicking ${q} did not ${want ? "check" : "uncheck"} it: the page kept it ${now ? "checked" : "unchecked"}`,
        "selector",
      );
    return { checked: now };
  },
});
