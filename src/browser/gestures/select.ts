// select: a <select>'s option chosen as a person does (the pick, then input and change), or the value
// of a range, date, time or color input, which a pointer cannot set (set from the sandbox realm, then
// input and change, as the browser's own picker fires them).
import { z } from "zod";
import { badInput } from "../../errors.ts";
import type { Page } from "../../grid/page.ts";
import type { NodeRef } from "../../grid/page-call.ts";
import type { PageLib } from "../../in-page/index.ts";
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

// Chooses the option as a person would (the pick, then input and change); WebDriver's own option
// click does the same. `dry` only finds it.
const PICK_OPTION = (L: PageLib, el: Element, want: string, dry: boolean): unknown => {
  let select: Element | null = el;
  if (el.tagName !== "SELECT") {
    const inner = el.tagName === "LABEL" ? (el as HTMLLabelElement).control : null;
    const nested = el.querySelectorAll("select");
    select = inner?.tagName === "SELECT" ? inner : nested.length === 1 ? (nested[0] as Element) : null;
  }
  if (!select) return { problem: `not-select:${el.tagName.toLowerCase()}:${L.roleOf(el) ?? ""}` };
  const opts = Array.from((select as HTMLSelectElement).options);
  const label = (o: HTMLOptionElement) => L.norm(o.label || o.text);
  const w = L.norm(want);
  const lw = w.toLowerCase();
  const pick =
    opts.find((o) => label(o) === w) ??
    opts.find((o) => o.value === want) ??
    opts.find((o) => label(o).toLowerCase() === lw) ??
    opts.find((o) => label(o).toLowerCase().includes(lw));
  if (!pick) return { problem: "no-option", options: opts.slice(0, 15).map(label) };
  const out = { label: label(pick), value: pick.value, selected: pick.selected, disabled: pick.disabled };
  if (dry || pick.selected || pick.disabled) return out;
  const s = select as HTMLSelectElement;
  if (!s.multiple) for (const o of opts) o.selected = o === pick;
  else pick.selected = true;
  s.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  s.dispatchEvent(new Event("change", { bubbles: true }));
  return out;
};

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

// The input (or a label's control); null when it is not one of FORMATS' types. A value the browser
// sanitises away or clamps is refused, and the old value put back.
const SET_VALUE = (_L: PageLib, el: Element, want: string, types: string[]): unknown => {
  const control = el.tagName === "LABEL" ? (el as HTMLLabelElement).control : el;
  if (control?.tagName !== "INPUT") return null;
  const input = control as HTMLInputElement;
  const type = input.type;
  if (!types.includes(type)) return null;
  const bounds = { type, min: input.min, max: input.max, step: input.step };
  if (input.disabled || input.readOnly) return { ...bounds, problem: "disabled" };
  const before = input.value;
  input.value = want;
  const got = input.value;
  const same =
    type === "range"
      ? want.trim() !== "" && Number(got) === Number(want)
      : type === "color"
        ? got === want.trim().toLowerCase()
        : got === want.trim();
  if (!same) {
    input.value = before;
    return { ...bounds, problem: "refused", value: got };
  }
  if (got !== before) {
    input.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }
  return { type, value: got };
};

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
  const got = await page.callIn<ValueSet | null>(el.context, SET_VALUE, el, want, Object.keys(FORMATS));
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
  const pick = await page.callIn<OptionPick>(el.context, PICK_OPTION, el, input.value, true);
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
  if (!pick.selected) await page.callIn(el.context, PICK_OPTION, el, input.value, false);
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
  async run({ page, input, act }) {
    const el = await locate(page, input.selector as Selector, { timeout: input.timeout, visible: true });
    let selected: { label: string; value: string } | undefined;
    await act(async () => {
      selected = (await setInputValue(page, el, input)) ?? (await selectOption(page, el, input));
    });
    return selected ? { selected } : {};
  },
});
