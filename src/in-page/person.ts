// Page side of a person's Take over: the password fields a person types into are noted, and those
// still filled when they hand back (not sent) are emptied, as a person's delete would (spec §1.17).
import { erase } from "./bound.ts";

// Module state of the sandbox realm: lives with the document.
const filled = new Set<Element>();

/** A person is about to type: the focused field of this document is noted when it is a password's. */
export function personTyping(): boolean {
  if (!document.hasFocus()) return false;
  let a = document.activeElement;
  while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
  if (a?.tagName !== "INPUT" || (a as HTMLInputElement).type !== "password") return false;
  filled.add(a);
  return true;
}

/** Hand back: the password fields a person filled and did not send are emptied; how many. */
export function personHandBack(): number {
  let n = 0;
  for (const el of filled) {
    if (el.isConnected && (el as HTMLInputElement).value !== "") {
      erase(el);
      n++;
    }
  }
  filled.clear();
  return n;
}
