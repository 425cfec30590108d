// Page side: a value put into a field from the sandbox realm of the field's own document, never as
// keystrokes to whatever has focus (the server asks which realm that is first).

/** What went wrong putting the value in; "ok" when it is in. */
export type FillOutcome = "ok" | "gone" | "focus" | "format";

/**
 * Sets the value on the element itself: the native setter of this realm (the page cannot patch
 * it), then input (commitField fires change); a rich editor takes an insert at a selection inside it.
 */
export function fillField(el: HTMLInputElement, value: string, clear: boolean): FillOutcome {
  if (!el?.isConnected || el.ownerDocument !== document) return "gone";
  try {
    el.focus({ preventScroll: true });
  } catch {
    // a field that cannot take the focus still takes its value
  }
  if (el.isContentEditable) {
    const range = document.createRange();
    range.selectNodeContents(el);
    if (!clear) range.collapse(false);
    const sel = document.getSelection();
    sel?.removeAllRanges();
    sel?.addRange(range);
    if (!sel?.anchorNode || !el.contains(sel.anchorNode)) return "focus";
    if (value === "") document.execCommand("delete");
    else if (!document.execCommand("insertText", false, value)) {
      range.deleteContents();
      range.insertNode(document.createTextNode(value));
      el.dispatchEvent(new InputEvent("input", { bubbles: true, composed: true, inputType: "insertText" }));
    }
    return "ok";
  }
  const proto = el.tagName === "TEXTAREA" ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  const set = Object.getOwnPropertyDescriptor(proto, "value")?.set;
  let next = clear ? value : el.value + value;
  if (el.maxLength >= 0) next = next.slice(0, el.maxLength);
  set?.call(el, next);
  if (el.value !== next) return "format";
  el.dispatchEvent(new InputEvent("input", { bubbles: true, composed: true, inputType: "insertText" }));
  return "ok";
}

/**
 * Once a write's text is in a field, by whatever path (an insert, keys, the value set whole, a bound
 * write's fill): change, as leaving the field would fire it, so a page that takes the value on change
 * (and may rewrite it) does so now. Whether the field then holds something else than what was typed
 * (`clear`: exactly it; else ending in it). A rich editor fires no change and is not compared.
 */
export function commitField(el: HTMLInputElement, typed: string, clear: boolean): boolean {
  if (!el?.isConnected || el.isContentEditable || typeof el.value !== "string") return false;
  el.dispatchEvent(new Event("change", { bubbles: true }));
  const want = typed.replace(/\r\n?/g, "\n");
  return clear ? el.value !== want : !el.value.endsWith(want);
}
