// write's fields: finding the field a selector names (the element, the control of a label, or the one
// field inside a wrapper), typing the agent's text into it, and sending its form.
import { Key } from "selenium-webdriver";
import { badInput } from "../errors.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef } from "../grid/page-call.ts";
import { insertable as insertableText } from "../in-page/fields.ts";
import { quoteSelector } from "./failures.ts";
import { type PageMatch, type Selector, seek } from "./selectors.ts";

export interface Field extends PageMatch {
  field?: NodeRef;
  kind?: "input" | "textarea" | "editable";
  problem?: string;
  locked?: string;
  /** Whether it holds something now (clearing it takes keys). */
  filled?: boolean;
  /** An input's type. */
  type?: string;
  /** The most characters it keeps (-1: no limit). */
  maxLength?: number;
  /** With `insert` asked: what the insert did in the same call (in-page/fields.ts focusField), absent when not tried. */
  inserted?: boolean | "ok" | "keys";
}

/** A field found, its element certain. */
export type Found = Field & { field: NodeRef };

/** The field `selector` names, waited for; a 400 for what is no field or cannot be typed into. */
export async function findField(
  page: Page,
  selector: Selector,
  timeout: number,
  insert?: { text: string; clear: boolean },
): Promise<Found> {
  const field = await seek<Field>(
    page,
    selector,
    { timeout, visible: true },
    "fieldTarget",
    insert ? { insert } : {},
  );
  const q = quoteSelector(selector);
  if (field.problem) {
    throw badInput(
      `${q} is a <${field.problem}>, not a field you can type into: name the input itself (read_page lists the fields), or use interact for selects, checkboxes and buttons`,
      "selector",
    );
  }
  if (field.locked) throw badInput(`${q} is ${field.locked}: it cannot be typed into`, "selector");
  return field as Found;
}

/** Enter in the field (a textarea's or a rich editor's form is submitted instead). */
export async function submitIn(page: Page, field: Found, selector: Selector): Promise<void> {
  const el = field.field;
  if (field.kind === "input") {
    // Enter only while the field holds the focus: refused if the page moved it away.
    if (!(await page.callIn<boolean>(el.context, "focusField", el))) {
      throw badInput(
        `${quoteSelector(selector)} lost the focus before Enter, so the form was not sent: give submit the page's send button instead`,
        "submit",
      );
    }
    await page.keys(el.context, [{ modifiers: [], key: Key.ENTER }]);
    return;
  }
  if (!(await page.callIn<boolean>(el.context, "submitForm", el))) {
    throw badInput(
      `${quoteSelector(selector)} is a ${field.kind === "textarea" ? "textarea" : "rich text field"} outside any form, so submit has nothing to send: give submit the page's send button instead`,
      "submit",
    );
  }
}

const unfocused = (selector: Selector) =>
  badInput(
    `${quoteSelector(selector)} would not take the focus (the page moved it elsewhere), so nothing was typed: click the field first, or name another one`,
    "selector",
  );

/**
 * The agent's text into the field: one insert at the caret where the field takes it (a paste's
 * beforeinput and input), else key by key. A tab in the text goes in as a character, never as the
 * Tab key (which would move on and type the rest into the next field).
 */
export async function typeInto(
  page: Page,
  field: Found,
  selector: Selector,
  text: string,
  clear: boolean,
): Promise<void> {
  const el = field.field;
  const typed = text.replace(/\r\n?/g, "\n");
  const max = field.maxLength ?? -1;
  if (field.inserted === "ok") return;
  if (field.inserted === false) throw unfocused(selector);
  if (insertableText(field.kind ?? "input", field.type, max, typed)) {
    const got = await page.callIn<boolean | string>(el.context, "focusField", el, {
      text: typed,
      clear: clear && !!field.filled,
    });
    if (got === false) throw unfocused(selector);
    if (got === "ok") return;
  } else if (!(await page.callIn<boolean>(el.context, "focusField", el))) throw unfocused(selector);
  const keys: { modifiers: string[]; key: string }[] = [];
  if (clear && field.filled)
    keys.push({ modifiers: [Key.CONTROL], key: "a" }, { modifiers: [], key: Key.BACK_SPACE });
  for (const ch of typed) keys.push({ modifiers: [], key: ch === "\n" ? Key.ENTER : ch });
  if (keys.length) await page.keys(el.context, keys);
  // A field that keeps fewer characters than given dropped the rest, as it would a person's keys;
  // unless it handed the focus on (a code split over one-character boxes), that is said.
  if (max >= 0 && typed.length > max && clear) {
    const kept = await page.callIn<number>(el.context, "keptLength", el, typed);
    if (kept >= 0)
      throw badInput(
        `${quoteSelector(selector)} kept the first ${kept} of the ${typed.length} characters given (its maxlength is ${max}) and dropped the rest: write at most ${max}`,
        "text",
      );
  }
}
