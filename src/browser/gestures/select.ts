// select: a <select>'s option chosen as a person does (the pick, then input and change), or the value
// of a range, date, time or color input, which a pointer cannot set (set from the sandbox realm, then
// input and change, as the browser's own picker fires them).
import { z } from "zod";
import { badInput } from "../../errors.ts";
import type { Page } from "../../grid/page.ts";
import type { NodeRef } from "../../grid/page-call.ts";
import { delivered } from "../landing.ts";
import { locate, type Selector } from "../selectors.ts";
import { defineGesture, needsSelector, selectorField } from "./gesture.ts";

interface OptionPick {
  problem?: string;
  label?: string;
  value?: string;
  selected?: boolean;
  disabled?: boolean;
  options?: string[];
}

/** What each settable input type takes, for the message when the browser refused a value. */
const FORMATS: Record<string, string> = {
  range: "a number",
  date: "YYYY-MM-DD",
  time: "HH:MM or HH:MM:SS",
  "datetime-local": "YYYY-MM-DDTHH:MM",
  month: "YYYY-MM",
  week: "YYYY-Www",
  color: "#rrggbb",
};

interface ValueSet {
  type?: string;
  problem?: "disabled" | "refused";
  value?: string;
  min?: string;
  max?: string;
  step?: string;
}

/**
 * Sets a range, date, time or color input to `value`; null when the element is none of those.
 * `field`: the input field the value came from (write's text), for messages.
 */
export async function setInputValue(
  page: Page,
  el: NodeRef,
  input: { selector?: Selector; value?: string },
  field = "value",
): Promise<{ label: string; value: string } | null> {
  const want = input.value ?? "";
  const got = await page.callIn<ValueSet | null>(el.context, "setValue", el, want, Object.keys(FORMATS));
  if (!got) return null;
  const q = JSON.stringify(input.selector);
  const kind = `the ${got.type} input ${q}`;
  if (got.problem === "disabled") throw badInput(`${kind} is disabled or read-only`, "selector");
  if (got.problem === "refused") {
    const range = [got.min && `min ${got.min}`, got.max && `max ${got.max}`, got.step && `step ${got.step}`]
      .filter(Boolean)
      .join(", ");
    throw badInput(
      `${kind} does not take ${JSON.stringify(want)}: give ${FORMATS[got.type as string]}${range ? ` (${range})` : ""}`,
      field,
    );
  }
  return { label: got.value as string, value: got.value as string };
}

async function selectOption(
  page: Page,
  el: NodeRef,
  input: { selector?: Selector; value?: string },
): Promise<{ label: string; value: string }> {
  const q = JSON.stringify(input.selector);
  const pick = await page.callIn<OptionPick>(el.context, "pickOption", el, input.value, true);
  if (pick.problem?.startsWith("not-select")) {
    const [, tag, role] = pick.problem.split(":");
    throw badInput(
      `${q} is a <${tag}>${role ? ` (${role})` : ""}, not a <select>: for a custom dropdown, click it to open the list, then click the option`,
      "selector",
    );
  }
  if (pick.problem === "no-option") {
    const list = (pick.options ?? []).map((o) => JSON.stringify(o)).join(", ");
    throw badInput(
      `${q} has no option labelled or valued ${JSON.stringify(input.value)}; its options: ${list}`,
      "value",
    );
  }
  if (pick.disabled) throw badInput(`the option ${JSON.stringify(pick.label)} of ${q} is disabled`, "value");
  if (!pick.selected) await page.callIn(el.context, "pickOption", el, input.value, false);
  return { label: pick.label as string, value: pick.value as string };
}

export const select = defineGesture({
  actions: ["select"],
  fields: {
    selector: selectorField,
    value: z.string().max(2000).optional().describe("select: option or value.").meta({
      docs: "select only: the option's visible label or its value; for a range, date, time or color input, its value (50, 2024-05-31, 13:45, #ff0000).",
    }),
  },
  output: {
    selected: z
      .object({ label: z.string(), value: z.string() })
      .optional()
      .describe("select: the option now chosen."),
  },
  docs: "select: an option of a <select>, by its label or value (on a multiple select each call adds its option to those chosen); it also sets a range, date, time, datetime-local, month, week or color input (input and change follow; a value the input would clamp or drop is refused).",
  check(i, issue) {
    needsSelector(i, issue);
    if (i.value === undefined) issue("value", "must be given for select: an option's label or value");
  },
  async run({ page, input, press }) {
    const el = await locate(page, input.selector as Selector, { timeout: input.timeout, visible: true });
    let selected: { label: string; value: string } | undefined;
    press.before = page.held.navigationCount;
    try {
      selected = (await setInputValue(page, el, input)) ?? (await selectOption(page, el, input));
    } catch (err) {
      await delivered(page, err);
    }
    return selected ? { selected } : {};
  },
});
