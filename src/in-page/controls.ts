// What the server's actions do to one element they found (src/browser/, files/): check a box, pick
// an option, set a value, focus, submit, drop files or drag, name a frame's window, and what a
// message or a picture needs of it. Each is called through the page port by its name.

import { isVisible, norm } from "./dom.ts";
import { commitField } from "./fill.ts";
import { describe } from "./hints.ts";
import { wrotePlain } from "./plain.ts";
import { roleOf } from "./roles.ts";

/** A file carried into the page for a drop (its bytes as base64). */
interface Carried {
  name: string;
  type: string;
  data: string;
}

// Finds what to check: the element, the control of a label, or the one checkbox/radio inside it; and
// what to click for it: the control when it shows, else its label (custom-styled checkboxes).
export function checkable(el: Element): unknown {
  const isBox = (e: Element) =>
    (e.tagName === "INPUT" && ["checkbox", "radio"].includes((e as HTMLInputElement).type)) ||
    ["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"].includes(roleOf(e) ?? "");
  let box: Element | null = isBox(el) ? el : null;
  if (!box && el.tagName === "LABEL") {
    const c = (el as HTMLLabelElement).control;
    if (c && isBox(c)) box = c;
  }
  if (!box) {
    const inner = Array.from(
      el.querySelectorAll(
        "input[type=checkbox],input[type=radio],[role=checkbox],[role=switch],[role=radio]",
      ),
    );
    if (inner.length === 1) box = inner[0] as Element;
  }
  if (!box) return { problem: `${el.tagName.toLowerCase()}:${roleOf(el) ?? ""}` };
  const input = box.tagName === "INPUT" ? (box as HTMLInputElement) : null;
  const checked = input ? input.checked : box.getAttribute("aria-checked") === "true";
  const radio = input ? input.type === "radio" : (roleOf(box) ?? "").endsWith("radio");
  const labels = input?.labels ? Array.from(input.labels).filter(isVisible) : [];
  const label = labels[0] ?? (el !== box && isVisible(el) ? el : null);
  const click = isVisible(box) ? box : label;
  if (click) click.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
  const covered =
    !!click &&
    (() => {
      const r = click.getClientRects()[0];
      if (!r) return false;
      const top = (click.getRootNode() as Document | ShadowRoot).elementFromPoint(
        r.left + r.width / 2,
        r.top + r.height / 2,
      );
      return (
        !!top && top !== click && !click.contains(top) && !(label && (top === label || label.contains(top)))
      );
    })();
  return { checked, radio, click, label, covered };
}

/** Whether the box (the element, a label's control, or the one inside it) is checked now. */
export function readChecked(el: Element): boolean {
  const box =
    el.tagName === "LABEL" && (el as HTMLLabelElement).control
      ? ((el as HTMLLabelElement).control as Element)
      : el.matches(
            "input[type=checkbox],input[type=radio],[role=checkbox],[role=switch],[role=radio],[role=menuitemcheckbox],[role=menuitemradio]",
          )
        ? el
        : (el.querySelector(
            "input[type=checkbox],input[type=radio],[role=checkbox],[role=switch],[role=radio]",
          ) ?? el);
  return box.tagName === "INPUT"
    ? (box as HTMLInputElement).checked
    : box.getAttribute("aria-checked") === "true";
}

// Chooses the option as a person would (the pick, then input and change); WebDriver's own option
// click does the same. `dry` only finds it.
export function pickOption(el: Element, want: string, dry: boolean): unknown {
  let select: Element | null = el;
  if (el.tagName !== "SELECT") {
    const inner = el.tagName === "LABEL" ? (el as HTMLLabelElement).control : null;
    const nested = el.querySelectorAll("select");
    select = inner?.tagName === "SELECT" ? inner : nested.length === 1 ? (nested[0] as Element) : null;
  }
  if (!select) return { problem: `not-select:${el.tagName.toLowerCase()}:${roleOf(el) ?? ""}` };
  const opts = Array.from((select as HTMLSelectElement).options);
  const label = (o: HTMLOptionElement) => norm(o.label || o.text);
  const w = norm(want);
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
}

// The input (or a label's control); null when it is not one of FORMATS' types. A value the browser
// sanitises away or clamps is refused, and the old value put back.
export function setValue(el: Element, want: string, types: string[]): unknown {
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
}

/** Focuses the element; whether it holds the focus then (a key press goes there). */
export function focusOn(el: HTMLElement): boolean {
  el.focus();
  return el.ownerDocument.activeElement === el;
}

// A textarea or a rich editor takes Enter as a new line: submit its form the way its button would.
export function submitForm(el: Element): boolean {
  const form = (el as HTMLInputElement).form ?? el.closest("form");
  if (!form) return false;
  form.requestSubmit();
  return true;
}

// How many characters of `text` the field kept when it holds only their start, still focused; else
// -1: the focus moved on (the page took the rest elsewhere), the page reformatted what it got (a
// card number's spaces taken out), or the type ignores maxlength (number).
export function keptLength(el: HTMLInputElement, text: string): number {
  const v = el.value;
  return el.ownerDocument.activeElement === el && v.length < text.length && text.startsWith(v)
    ? v.length
    : -1;
}

// One DataTransfer for the whole drop, as the browser keeps one; false when no dragover was
// cancelled (the element takes no drop, and a browser would not drop there either).
export function dropOnto(el: Element, files: Carried[], data: Record<string, string>): boolean {
  const dt = new DataTransfer();
  for (const [type, text] of Object.entries(data)) dt.setData(type, text);
  for (const f of files) {
    const bin = atob(f.data);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    dt.items.add(new File([bytes], f.name, { type: f.type }));
  }
  const r = el.getBoundingClientRect();
  const pos = { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2 };
  const fire = (type: string) =>
    el.dispatchEvent(
      new DragEvent(type, { bubbles: true, cancelable: true, composed: true, dataTransfer: dt, ...pos }),
    );
  fire("dragenter");
  if (fire("dragover")) {
    fire("dragleave");
    return false;
  }
  fire("drop");
  return true;
}

// HTML5 drag and drop as the browser would fire it, with one DataTransfer shared by every event.
export function html5Drag(src: Element, dst: Element): boolean {
  const draggable = src.closest("[draggable=true]");
  if (!draggable) return false;
  const data = new DataTransfer();
  const at = (el: Element) => {
    const r = el.getBoundingClientRect();
    return { clientX: r.left + r.width / 2, clientY: r.top + r.height / 2 };
  };
  const fire = (el: Element, type: string, pos: { clientX: number; clientY: number }) =>
    el.dispatchEvent(
      new DragEvent(type, { bubbles: true, cancelable: true, composed: true, dataTransfer: data, ...pos }),
    );
  const from = at(draggable);
  const to = at(dst);
  fire(draggable, "dragstart", from);
  fire(dst, "dragenter", to);
  const accepted = !fire(dst, "dragover", to);
  if (accepted) fire(dst, "drop", to);
  else fire(dst, "dragleave", to);
  fire(draggable, "dragend", to);
  return true;
}

// The iframe's own window, whose context the agent then acts in.
export function frameWindow(el: Element) {
  const tag = el.tagName.toLowerCase();
  if (tag !== "iframe" && tag !== "frame") return { tag };
  return { tag, window: (el as HTMLIFrameElement).contentWindow };
}

/** The names of the files a file input holds now. */
export function chosenFiles(el: HTMLInputElement): string[] {
  return Array.from(el.files ?? []).map((f) => f.name);
}

/** The window's inner size (where a pointer may go). */
export function innerViewport(): { width: number; height: number } {
  return { width: innerWidth, height: innerHeight };
}

// Where an element inside a frame shows in its tab's viewport: its box plus each same-origin frame's
// offset on the way up; null past a cross-origin frame, whose place the sandbox cannot see.
export function boxInTop(el: Element) {
  const r = el.getBoundingClientRect();
  let x = r.left;
  let y = r.top;
  let w: Window = el.ownerDocument.defaultView ?? window;
  while (w !== w.top) {
    const host = w.frameElement;
    if (!host) return null;
    const f = host.getBoundingClientRect();
    const style = getComputedStyle(host);
    x +=
      f.left + (Number.parseFloat(style.borderLeftWidth) || 0) + (Number.parseFloat(style.paddingLeft) || 0);
    y += f.top + (Number.parseFloat(style.borderTopWidth) || 0) + (Number.parseFloat(style.paddingTop) || 0);
    w = w.parent;
  }
  return { x, y, width: r.width, height: r.height };
}

/** How each element reads in a message (a script's answer names elements this way). */
export function describeAll(els: Element[]): string[] {
  return els.map((e) => describe(e));
}

// The agent's own text is marked (spec §1.17), then change fires as leaving the field fires it (a
// bound write's fill does the same): what the field holds when the page changed it from the text (a
// password's is never read), null when it holds the text.
export function commitText(
  f: HTMLInputElement,
  text: string,
  clear: boolean,
  compare: boolean,
): { value?: string } | null {
  wrotePlain(f);
  if (!commitField(f, text, clear) || !compare) return null;
  return f.type === "password" ? {} : { value: f.value };
}
