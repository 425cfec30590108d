// Describing what read_page hands out: a walked line's elements (names, state, refs, a selector
// for scripts), landmarks and frames, as entries for render.ts.

import { accessibleName } from "./accname.ts";
import { DRAGGABLE, DROPPABLE, nameOf } from "./actable.ts";
import { BUTTON_INPUTS, cut, norm, textOf } from "./dom.ts";
import { INTERACTIVE } from "./hints.ts";
import { type Frame, type Raw, urlWord } from "./outline-walk.ts";
import { plainOf } from "./plain.ts";
import { refFor } from "./refs.ts";
import type { Css, Entry, ReadElement } from "./render.ts";
import { roleOf } from "./roles.ts";
import { cssFor, find } from "./selectors.ts";

const FIELD_ROLES = new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"]);

// ---- describing what goes out -------------------------------------------------------------------

/** A selector that finds exactly el: a unique CSS selector, else role and name, else its text. */
function selectorFor(el: Element, inFrame: boolean): Css | undefined {
  const css = cssFor(el);
  if (css) return { css };
  if (inFrame) return undefined;
  const role = roleOf(el);
  const name = accessibleName(el);
  if (role && name) {
    const f = find({ role, name });
    if (f.els.length === 1 && f.els[0] === el) return { role, name };
  }
  const text = textOf(el);
  if (text && text.length <= 80) {
    const f = find({ text });
    if (f.els.length === 1 && f.els[0] === el) return { text };
  }
  return undefined;
}

/** A link to the page's own origin, written whole, as the path it comes to. */
function ownPath(href: string, doc: Document): string {
  const origin = doc.location?.origin;
  if (!origin || origin === "null" || !href.toLowerCase().startsWith(origin.toLowerCase())) return href;
  const rest = href.slice(origin.length);
  return rest === "" ? "/" : rest.startsWith("/") ? rest : href;
}

/** The element's box in its viewport, CSS pixels rounded. */
function boxOf(el: Element): { x: number; y: number; width: number; height: number } {
  const r = el.getBoundingClientRect();
  return { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) };
}

function describe(el: Element, frame: Frame, boxes: boolean): ReadElement | null {
  const tag = el.tagName;
  if (tag === "OPTION" && el.closest("select")) return null;
  const cursor = (el.ownerDocument.defaultView ?? window).getComputedStyle(el).cursor;
  const drag = el.matches(DRAGGABLE) || cursor === "grab" || cursor === "move";
  const drop = el.matches(DROPPABLE);
  const native = el.matches(INTERACTIVE);
  // Listed for what the page made of it (a pointer cursor, a handler): something to click.
  const made = !native && !drag && !drop;
  const { name: full, icon } = nameOf(el);
  const explicit = roleOf(el);
  const role =
    (made ? (icon ? "button" : "clickable") : explicit) ??
    ((el as HTMLElement).isContentEditable
      ? "textbox"
      : tag === "INPUT"
        ? (el as HTMLInputElement).type
        : native
          ? "button"
          : "generic");
  // A role is a word: the page's own attribute must not write marks of the outline.
  const e: ReadElement = { ref: refFor(el), role: /^[a-z-]*/.exec(role)?.[0] || "generic" };
  if (icon && made) e.icon = true;
  const name = cut(full, 80);
  if (name) e.name = name;
  const sel = selectorFor(el, frame.length > 0);
  if (sel) e.selector = sel;
  if (frame.length) e.frame = frame;
  if (tag === "A" || tag === "AREA") {
    const href = el.getAttribute("href");
    if (href) e.href = cut(urlWord(ownPath(href, el.ownerDocument)), 100);
  }
  if (tag === "INPUT" || tag === "TEXTAREA") {
    const input = el as HTMLInputElement;
    const type = tag === "INPUT" ? input.type : "textarea";
    if (type !== "text" && type !== "submit" && type !== "button") e.type = type;
    if (type === "checkbox" || type === "radio") e.checked = input.checked;
    else if (type === "password") e.filled = input.value.length > 0;
    else if (!BUTTON_INPUTS.includes(type) && type !== "file" && input.value)
      e.value = input.value.length <= 200 ? plainOf(el, input.value) : cut(input.value, 200);
    const ph = norm(input.getAttribute("placeholder"));
    if (ph && ph !== name) e.placeholder = cut(ph, 80);
    if (input.required) e.required = true;
    if (input.readOnly) e.readonly = true;
  } else if (tag === "SELECT") {
    const s = el as HTMLSelectElement;
    const label = (o: HTMLOptionElement) => cut(norm(o.label || o.text), 60);
    const all = Array.from(s.options);
    e.options = all.slice(0, 25).map(label);
    if (all.length > 25) e.options.push(`… ${all.length - 25} more`);
    const chosen = Array.from(s.selectedOptions).map(label);
    e.selected = s.multiple ? chosen : (chosen[0] ?? "");
    if (s.required) e.required = true;
  } else if ((el as HTMLElement).isContentEditable) {
    // biome-ignore lint/performance/useDomNodeTextContent: what the editor shows
    const v = norm((el as HTMLElement).innerText);
    if (v) e.value = cut(v, 200);
  }
  if (FIELD_ROLES.has(role) && e.checked === undefined)
    e.checked = el.getAttribute("aria-checked") === "true";
  const expanded = el.getAttribute("aria-expanded");
  if (expanded !== null) e.expanded = expanded === "true";
  if ((el as HTMLInputElement).disabled || el.getAttribute("aria-disabled") === "true") e.disabled = true;
  if (drag) e.draggable = true;
  if (drop) e.droppable = true;
  // The focus, as its own document (or shadow root) holds it: where keys typed now would go.
  if ((el.getRootNode() as Document | ShadowRoot).activeElement === el && !el.shadowRoot?.activeElement)
    e.focused = true;
  if (boxes) e.box = boxOf(el);
  return e;
}

export function entryOf(raw: Raw, boxes = false): Entry | null {
  if (raw.k === "landmark") {
    const out: Entry = { k: "landmark", d: raw.d, role: raw.role, ref: refFor(raw.el) };
    const name = cut(accessibleName(raw.el), 60);
    if (name) out.name = name;
    const sel = selectorFor(raw.el, false);
    if (sel) out.selector = sel;
    return out;
  }
  if (raw.k === "frame") {
    const out: Entry = { k: "frame", d: raw.d, ref: refFor(raw.el), url: raw.url, readable: raw.readable };
    if (raw.css) out.selector = { css: raw.css };
    return out;
  }
  const segs: (string | ReadElement)[] = [];
  for (const s of raw.segs) {
    if (typeof s === "string") segs.push(s);
    else if (s.isConnected) {
      const d = describe(s, raw.fr, boxes);
      if (d) segs.push(d);
    }
  }
  if (!segs.some((s) => typeof s !== "string" || s.trim())) return null;
  const out: Entry = { k: "line", d: raw.d, segs };
  if (raw.h) out.h = raw.h;
  if (raw.li) out.li = true;
  return out;
}
