// Page side: a value put into a field from the sandbox realm of the field's own document, never as
// keystrokes to whatever has focus (the server asks which realm that is first).

/** What went wrong putting the value in; "ok" when it is in. */
export type FillOutcome = "ok" | "gone" | "focus" | "format";

/**
 * Sets the value on the element itself: the native setter of this realm (the page cannot patch
 * it), then input and change; a rich editor takes an insert at a selection inside it.
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
  el.dispatchEvent(new Event("change", { bubbles: true }));
  return "ok";
}
