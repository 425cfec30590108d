// write's fields: typing the agent's text into the field the page found (grid/page-input.ts `field`:
// the element, the control of a label, or the one field inside a wrapper).
import { Key } from "selenium-webdriver";
import { badInput } from "../errors.ts";
import type { Page } from "../grid/page.ts";
import type { FoundField as Found } from "../grid/page-found.ts";
import { insertable as insertableText } from "../in-page/fields.ts";
import { quoteSelector } from "./failures.ts";
import type { Selector } from "./selectors.ts";

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
