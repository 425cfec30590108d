// Page side: focus a field and put text in it as one insert, the way a paste or an IME commit does.

/** Input types whose text goes in as one insert (others are set whole, or typed key by key). */
export const INSERTS = ["text", "search", "url", "tel", "password", "email", "number"];

/**
 * Focus goes to the field, with the caret at its end (as WebDriver's typing puts it); false when
 * the page would not let the field have it (the keys would land elsewhere). Given `insert`, its
 * text then goes in as one insert at the caret (beforeinput and input, no key per character), over
 * the field's text when it is cleared: "ok", or "keys" when the field refused it (nothing changed,
 * keys it is).
 */
export function focusField(
  el: HTMLInputElement,
  insert?: { text: string; clear: boolean },
): boolean | "ok" | "keys" {
  el.focus();
  const doc = el.ownerDocument;
  let active: Element | null = doc.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  if (active !== el && !(el.isContentEditable && el.contains(active))) return false;
  try {
    if (el.isContentEditable) {
      const range = doc.createRange();
      range.selectNodeContents(el);
      range.collapse(false);
      const sel = doc.getSelection();
      sel?.removeAllRanges();
      sel?.addRange(range);
    } else el.setSelectionRange(el.value.length, el.value.length);
  } catch {
    // an input type without a caret (email, number): the browser keeps it at the end
  }
  if (!insert) return true;
  if (insert.clear) {
    if (el.isContentEditable) {
      const range = doc.createRange();
      range.selectNodeContents(el);
      doc.getSelection()?.removeAllRanges();
      doc.getSelection()?.addRange(range);
    } else el.select();
  }
  if (insert.text === "") {
    if (insert.clear) doc.execCommand("delete");
    return "ok";
  }
  // As typing does, beforeinput first: a page that takes it (a rich editor) puts the text in itself.
  const before = new InputEvent("beforeinput", {
    inputType: "insertText",
    data: insert.text,
    bubbles: true,
    cancelable: true,
    composed: true,
  });
  if (!el.dispatchEvent(before)) return "ok";
  return doc.execCommand("insertText", false, insert.text) ? "ok" : "keys";
}

/** Whether `text` goes into a field of this kind as one insert (else it is typed key by key). */
export function insertable(
  kind: "input" | "textarea" | "editable",
  type: string | undefined,
  maxLength: number,
  text: string,
): boolean {
  return (
    !/[\n\r]/.test(text) &&
    (kind !== "input" || INSERTS.includes(type ?? "")) &&
    (maxLength < 0 || maxLength >= text.length)
  );
}
