// Page side: a durable locator for the element a selector names, for a run kept as a flow (a ref
// lasts only as long as its document). Chosen as Playwright's codegen chooses one: the candidates
// in order of how well they survive a new page load (a test id, role and name, placeholder or
// label, text, an #id that does not look made up, a field's name, then a CSS path), the first that
// finds exactly that element and no other, found by the very code that will find it when the flow
// runs (selectors.ts `find`).

import { accessibleName, labelsOf } from "./accname.ts";
import { textOf } from "./dom.ts";
import { roleOf } from "./roles.ts";
import { cssFor, find, type PageSelector, quote } from "./selectors.ts";

export type Locator = { css: string } | { text: string } | { label: string } | { role: string; name: string };

const TEST_IDS = ["data-testid", "data-test-id", "data-test"];
/** Longer names and texts make brittle locators (Playwright's codegen stops at 80 too). */
const LONGEST = 80;

/**
 * An id a framework made up (`:r1:`, `ember42`, a hash), which the next load may not repeat: as
 * Playwright's codegen judges it, one with a switch between lower case, upper case, digits and
 * other characters for every four characters or fewer (`-` and `_` not counted, a capital starting
 * a word not a switch).
 */
function madeUp(id: string): boolean {
  const kind = (c: string) =>
    /[a-z]/.test(c) ? "lower" : /[A-Z]/.test(c) ? "upper" : /\d/.test(c) ? "digit" : "other";
  let last: string | null = null;
  let switches = 0;
  for (const c of id) {
    if (c === "-" || c === "_") continue;
    const now = kind(c);
    if (last !== null && last !== now && !(now === "lower" && last === "upper")) switches++;
    last = now;
  }
  return switches >= id.length / 4;
}

function candidates(el: Element): Locator[] {
  const out: Locator[] = [];
  const tag = el.tagName.toLowerCase();
  for (const attr of TEST_IDS) {
    const v = el.getAttribute(attr);
    if (v) out.push({ css: `[${attr}=${quote(v)}]` });
  }
  const role = roleOf(el);
  const name = accessibleName(el);
  if (role && role !== "none" && role !== "presentation" && name) out.push({ role, name });
  const { primary, placeholder } = labelsOf(el);
  if (placeholder) out.push({ label: placeholder });
  for (const label of primary) out.push({ label });
  const text = textOf(el);
  if (text) out.push({ text });
  if (el.id && !madeUp(el.id)) out.push({ css: `#${CSS.escape(el.id)}` });
  const field = el.getAttribute("name");
  if (field && /^(input|select|textarea|button)$/.test(tag))
    out.push({ css: `${tag}[name=${quote(field)}]` });
  return out;
}

/** Whether `loc` is fit to keep and finds exactly `el`. */
function keeps(el: Element, loc: Locator): boolean {
  const words = Object.values(loc) as string[];
  if (words.some((w) => w.length > LONGEST && !("css" in loc))) return false;
  const got = find(loc as PageSelector);
  return !got.invalid && got.els.length === 1 && got.els[0] === el;
}

/** The most durable locator that finds exactly `el` in its document, or null when none does. */
function locatorFor(el: Element): Locator | null {
  for (const loc of candidates(el)) if (keeps(el, loc)) return loc;
  const css = cssFor(el);
  return css && keeps(el, { css }) ? { css } : null;
}

/** The locator of the element `sel` names now (the first, as an action takes it), or null. */
export function locatorOf(sel: PageSelector): Locator | null {
  const el = find(sel).els[0];
  return el?.isConnected ? locatorFor(el) : null;
}
