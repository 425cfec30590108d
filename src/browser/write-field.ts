// write's fields: finding the field a selector names (the element, the control of a label, or the one
// field inside a wrapper), typing the agent's text into it, and sending its form.
import { Key } from "selenium-webdriver";
import { badInput } from "../errors.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef } from "../grid/page-call.ts";
import { insertable as insertableText } from "../in-page/fields.ts";
import type { PageLib, PageSelector } from "../in-page/index.ts";
import { quoteSelector } from "./failures.ts";
import { type PageMatch, type SeekArgs, type Selector, seek } from "./selectors.ts";

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
  /** With `insert` asked: what the insert did in the same call (see FOCUS_FIELD), absent when not tried. */
  inserted?: boolean | "ok" | "keys";
}

/** A field found, its element certain. */
export type Found = Field & { field: NodeRef };

// Finds the field. Given `insert` (plain text), a field that takes it as one insert gets it in the
// same call: one round trip for the common write.
const FIELD = (
  L: PageLib,
  sel: PageSelector,
  opts: SeekArgs & { insert?: { text: string; clear: boolean } },
): unknown => {
  const found = L.find(sel);
  if (found.invalid) return { total: 0, visible: 0, invalid: found.invalid };
  const base = { total: found.els.length, visible: found.visible };
  const el = found.els[0];
  if (!el || (opts.visible && !found.visible)) return base;
  const NOT_TEXT = ["button", "submit", "reset", "image", "checkbox", "radio", "file", "hidden"];
  const editable = (e: Element) =>
    (e.tagName === "INPUT" && !NOT_TEXT.includes((e as HTMLInputElement).type)) ||
    e.tagName === "TEXTAREA" ||
    (e as HTMLElement).isContentEditable;
  let field: Element | null = editable(el) ? el : null;
  if (!field && el.tagName === "LABEL") {
    const c = (el as HTMLLabelElement).control;
    if (c && editable(c)) field = c;
  }
  if (!field) {
    const inner = Array.from(el.querySelectorAll("input,textarea,[contenteditable]")).filter(
      (e) => editable(e) && L.isVisible(e),
    );
    if (inner.length === 1) field = inner[0] as Element;
  }
  if (!field) {
    const type = el.tagName === "INPUT" ? (el as HTMLInputElement).type : "";
    return { ...base, problem: `${el.tagName.toLowerCase()}${type ? ` type=${type}` : ""}` };
  }
  const f = field as HTMLInputElement;
  const kind = f.tagName === "INPUT" ? "input" : f.tagName === "TEXTAREA" ? "textarea" : "editable";
  const locked = f.disabled ? "disabled" : f.readOnly ? "read-only" : L.covered(f);
  const filled = kind === "editable" ? (f.textContent ?? "") !== "" : f.value !== "";
  const maxLength = kind === "editable" ? -1 : f.maxLength;
  const type = kind === "input" ? f.type : undefined;
  const insert = opts.insert;
  const inserted =
    insert && !locked && L.insertable(kind, type, maxLength, insert.text)
      ? L.focusField(f, { text: insert.text, clear: insert.clear && filled })
      : undefined;
  return { ...base, field, kind, locked, filled, maxLength, type, inserted };
};

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
    FIELD,
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

// Focus goes to the field (see in-page/fields.ts); with `insert`, its text goes in as one insert.
const FOCUS_FIELD = (L: PageLib, el: HTMLInputElement, insert?: { text: string; clear: boolean }) =>
  L.focusField(el, insert);

// A textarea or a rich editor takes Enter as a new line: submit its form the way its button would.
const SUBMIT_FORM = (_L: PageLib, el: Element): boolean => {
  const form = (el as HTMLInputElement).form ?? el.closest("form");
  if (!form) return false;
  form.requestSubmit();
  return true;
};

/** Enter in the field (a textarea's or a rich editor's form is submitted instead). */
export async function submitIn(page: Page, field: Found, selector: Selector): Promise<void> {
  const el = field.field;
  if (field.kind === "input") {
    // Enter only while the field holds the focus: refused if the page moved it away.
    if (!(await page.callIn<boolean>(el.context, FOCUS_FIELD, el))) {
      throw badInput(
        `${quoteSelector(selector)} lost the focus before Enter, so the form was not sent: give submit the page's send button instead`,
        "submit",
      );
    }
    await page.keys(el.context, [{ modifiers: [], key: Key.ENTER }]);
    return;
  }
  if (!(await page.callIn<boolean>(el.context, SUBMIT_FORM, el))) {
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

// How many characters of `text` the field kept when it holds only their start, still focused; else
// -1: the focus moved on (the page took the rest elsewhere), the page reformatted what it got (a
// card number's spaces taken out), or the type ignores maxlength (number).
const KEPT = (_L: PageLib, el: HTMLInputElement, text: string): number => {
  const v = el.value;
  return el.ownerDocument.activeElement === el && v.length < text.length && text.startsWith(v)
    ? v.length
    : -1;
};

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
    const got = await page.callIn<boolean | string>(el.context, FOCUS_FIELD, el, {
      text: typed,
      clear: clear && !!field.filled,
    });
    if (got === false) throw unfocused(selector);
    if (got === "ok") return;
  } else if (!(await page.callIn<boolean>(el.context, FOCUS_FIELD, el))) throw unfocused(selector);
  const keys: { modifiers: string[]; key: string }[] = [];
  if (clear && field.filled)
    keys.push({ modifiers: [Key.CONTROL], key: "a" }, { modifiers: [], key: Key.BACK_SPACE });
  for (const ch of typed) keys.push({ modifiers: [], key: ch === "\n" ? Key.ENTER : ch });
  if (keys.length) await page.keys(el.context, keys);
  // A field that keeps fewer characters than given dropped the rest, as it would a person's keys;
  // unless it handed the focus on (a code split over one-character boxes), that is said.
  if (max >= 0 && typed.length > max && clear) {
    const kept = await page.callIn<number>(el.context, KEPT, el, typed);
    if (kept >= 0)
      throw badInput(
        `${quoteSelector(selector)} kept the first ${kept} of the ${typed.length} characters given (its maxlength is ${max}) and dropped the rest: write at most ${max}`,
        "text",
      );
  }
}
