// Page side: what the agent itself wrote as plain text into a field. The server's redactor never
// masks it (masking text only the agent could have put there would answer its guesses, spec §1.17):
// a field's value read out while it still holds exactly what the agent wrote comes between these
// two marks, which the redactor (src/secrets/redactor.ts) takes out.

/** Opens a stretch of the agent's own text (a Unicode noncharacter: no page text holds one). */
export const PLAIN_OPEN = "\uFDD0";
export const PLAIN_CLOSE = "\uFDD1";

// Module state of the sandbox realm: lives with the document.
const written = new WeakMap<Element, string>();

function textIn(el: Element): string {
  return (el as HTMLElement).isContentEditable
    ? (el.textContent ?? "")
    : String((el as HTMLInputElement).value);
}

/** The agent wrote plain text into el: what it holds now is the agent's own. */
export function wrotePlain(el: Element): boolean {
  written.set(el, textIn(el));
  return true;
}

/** `value` read from el, marked as the agent's own while el holds exactly what the agent wrote. */
export function plainOf(el: Element, value: string): string {
  const own = written.get(el);
  return own !== undefined && own === value && own === textIn(el) && value !== ""
    ? `${PLAIN_OPEN}${value.replace(/[\uFDD0\uFDD1]/g, "")}${PLAIN_CLOSE}`
    : value;
}
