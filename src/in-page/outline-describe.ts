// Describing what read_page hands out: a walked line's elements (names, state, refs, a selector
// for scripts), landmarks and frames, as entries for render.ts.

import { accessibleName } from "./accname.ts";
import { DRAGGABLE, DROPPABLE, nameOf } from "./actable.ts";
import { BUTTON_INPUTS, cut, norm, textOf } from "./dom.ts";
import { dropHinted } from "./hinted.ts";
import { INTERACTIVE } from "./hints.ts";
import { ownColor, placeIn, shapeColor, svgName, swatch } from "./media.ts";
import { urlWord } from "./outline-lines.ts";
import type { Frame, Note, Raw } from "./outline-walk.ts";
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

/** A picture, a drawing or one of its shapes, or a coloured box: described for what it shows. */
function shown(el: Element, note: Note | undefined): ReadElement | null {
  const tag = el.tagName;
  const svg = el.namespaceURI === "http://www.w3.org/2000/svg";
  if (tag !== "IMG" && !svg && note?.role !== "box") return null;
  const e: ReadElement = { ref: refFor(el), role: "img" };
  if (tag === "IMG") {
    const name = cut(accessibleName(el) || norm(el.getAttribute("alt")), 80);
    if (name) e.name = name;
    else {
      const src = (el as HTMLImageElement).currentSrc || el.getAttribute("src") || "";
      e.href = src.startsWith("data:") ? "data:…" : cut(urlWord(ownPath(src, el.ownerDocument)), 100);
    }
  } else if (note?.role === "box") {
    e.role = "box";
    const color = swatch(el, (el.ownerDocument.defaultView ?? window).getComputedStyle(el));
    if (color) e.color = color;
  } else if (tag.toLowerCase() === "svg") {
    const name = cut(svgName(el), 80);
    if (name) e.name = name;
    else e.role = "svg";
  } else {
    e.role = /^[a-z]*/.exec(tag.toLowerCase())?.[0] || "shape";
    const title = Array.from(el.children).find((c) => c.tagName.toLowerCase() === "title");
    const name = cut(norm(e.role === "text" ? el.textContent : title?.textContent), 80);
    if (name) e.name = name;
    const color = shapeColor(el);
    if (color) e.color = color;
    const at = placeIn(el);
    if (at) e.at = at;
  }
  return e;
}

/** Where a listed element is for scripts: its selector, and the frames to enter first (none in a frame no selector enters). */
function place(e: ReadElement, el: Element, frame: Frame | null): void {
  if (!frame) return;
  const sel = selectorFor(el, frame.length > 0);
  if (sel) e.selector = sel;
  if (frame.length) e.frame = frame;
}

function describe(el: Element, frame: Frame | null, boxes: boolean, note?: Note): ReadElement | null {
  const tag = el.tagName;
  if (tag === "OPTION" && el.closest("select")) return null;
  const pictured = shown(el, note);
  if (pictured) {
    place(pictured, el, frame);
    if (boxes) pictured.box = boxOf(el);
    return pictured;
  }
  const cursor = (el.ownerDocument.defaultView ?? window).getComputedStyle(el).cursor;
  const drag = el.matches(DRAGGABLE) || cursor === "grab" || cursor === "move";
  const drop = el.matches(DROPPABLE) || dropHinted(el);
  const native = el.matches(INTERACTIVE);
  // Listed for what the page made of it (a pointer cursor, a handler): something to click.
  const made = !native && !drag && !drop;
  const { name: full, icon } = note?.name ? { name: note.name, icon: false } : nameOf(el);
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
  if (icon) e.icon = true;
  const name = cut(full, 80);
  if (name) e.name = name;
  // Nothing names it but a guess: its colour may be what it shows (a coloured square to click).
  if ((!name || icon) && made && el.childElementCount <= 1) {
    const color = ownColor(el);
    if (color) e.color = color;
  }
  place(e, el, frame);
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
    // Read with the select as its root, the options come as lines of their own, every one.
    if (!note?.options) {
      e.options = all.slice(0, 25).map(label);
      if (all.length > 25) e.options.push(`… ${all.length - 25} more (read_page with its ref as selector)`);
    }
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

/**
 * A raw line, landmark or frame described, `base` deep in the whole outline (a frame read in its own
 * context sits under its frame line, its selectors behind the frames that lead to it).
 */
export function entryOf(
  raw: Raw,
  boxes = false,
  notes?: Map<Element, Note>,
  base: { d: number; frame: Frame | null } = { d: 0, frame: [] },
): Entry | null {
  const d = raw.d + base.d;
  const top = base.frame?.length === 0;
  if (raw.k === "landmark") {
    const out: Entry = { k: "landmark", d, role: raw.role, ref: refFor(raw.el) };
    const name = cut(accessibleName(raw.el), 60);
    if (name) out.name = name;
    const sel = top ? selectorFor(raw.el, false) : undefined;
    if (sel) out.selector = sel;
    return out;
  }
  if (raw.k === "frame") {
    const out: Entry = { k: "frame", d, ref: refFor(raw.el), url: raw.url, readable: raw.readable };
    if (raw.css && top) out.selector = { css: raw.css };
    return out;
  }
  const segs: (string | ReadElement)[] = [];
  const frame = base.frame ? [...base.frame, ...raw.fr] : null;
  for (const s of raw.segs) {
    if (typeof s === "string") segs.push(s);
    else if (s.isConnected) {
      const el = describe(s, frame, boxes, notes?.get(s));
      if (el) segs.push(el);
    }
  }
  if (!segs.some((s) => typeof s !== "string" || s.trim())) return null;
  const out: Entry = { k: "line", d, segs };
  if (raw.h) out.h = raw.h;
  if (raw.li) out.li = true;
  return out;
}
