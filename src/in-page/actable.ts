// Page side: what a person could act on beyond native controls and roles (hints.ts INTERACTIVE):
// elements the page made clickable (a pointer cursor, an inline click handler, an anchor without
// href, a script's action attribute, a click listener), drag handles and drop targets, and a short
// name for an icon that has no text. The page's own listeners live in its world, out of the sandbox's
// reach (each world has its own EventTarget and its own onclick property): what its scripts added is
// known from the hints a preload script in that world records (hinted.ts), and from what the page
// shows: its cursor, its attributes, its classes.

import { accessibleName, NAME_FROM_CONTENT } from "./accname.ts";
import { cut, norm, textOf } from "./dom.ts";
import { listened } from "./hinted.ts";
import { INTERACTIVE } from "./hints.ts";
import { roleOf } from "./roles.ts";

/** Drag handles: listed with refs and marked draggable, for interact drag. */
export const DRAGGABLE =
  "[draggable=true],[aria-grabbed],[aria-roledescription~=draggable i],[aria-roledescription~=sortable i],.ui-draggable,.ui-sortable-handle,.ui-sortable>*:not(.ui-sortable-placeholder):not(.ui-sortable-helper)";
/** Drop targets: a zone that takes a drop (ARIA, jQuery UI, an inline handler). */
export const DROPPABLE = "[aria-dropeffect]:not([aria-dropeffect=none]),.ui-droppable,[ondrop],[ondragover]";
/** Marks a page's script leaves on what it made clickable (inline handlers, frameworks' attributes). */
export const HANDLERS =
  "[onclick],[onmousedown],[onmouseup],[onpointerdown],[onpointerup],[ondblclick],[ng-click],[data-ng-click],[data-handler],[data-action],[data-toggle],[data-bs-toggle],[jsaction*=click]";
/** An anchor without href (a datepicker's Prev): a script's click target; one with a name is a mark. */
export const HREFLESS = "a:not([href]):not([name])";

// Not click targets of their own: a label acts through its control, the page itself through its parts.
const NOT_TARGETS = new Set(["LABEL", "HTML", "BODY", "MAIN", "FORM", "OPTION", "SELECT", "IFRAME", "FRAME"]);

/**
 * Why a walked element is a click target though no role says so: "handler" (an inline handler, a
 * framework's click attribute, an anchor without href), "listener" (a click listener the hints saw),
 * "pointer" (the top of a region with a pointer cursor, no bigger than a quarter of the window),
 * "focus" (focusable by script, tabindex -1, with a short text: a menu's or a list's item), "grab"
 * (the top of a region with a grab or move cursor: something to drag), or null. `box` is the
 * element's box, asked once by the walk (1,000 listened rows ask it twice otherwise).
 */
export function clickSignal(
  el: Element,
  style: CSSStyleDeclaration,
  parentCursor: string,
  box: () => DOMRect,
): string | null {
  if (NOT_TARGETS.has(el.tagName)) return null;
  const signal = signalOf(el, style, parentCursor, box);
  // A wrapper around a link or a button (a datepicker's day cell): that one is the target.
  return signal && !(el.firstElementChild && el.querySelector(INTERACTIVE)) ? signal : null;
}

/** Whether `el` (its box `box()`) takes no more than 1/`part` of its window. */
function small(el: Element, part: number, box: () => DOMRect): boolean {
  const r = box();
  const view = el.ownerDocument.defaultView ?? window;
  return r.width * r.height <= (view.innerWidth * view.innerHeight) / part;
}

function signalOf(
  el: Element,
  style: CSSStyleDeclaration,
  parentCursor: string,
  box: () => DOMRect,
): string | null {
  if (el.matches(HANDLERS) || el.matches(HREFLESS)) return "handler";
  // A click listener the page's own world added (a hint: in-page/hinted.ts), on something no bigger
  // than a part of the page (a framework's listener on its root is not a target).
  if (listened(el) && small(el, 4, box) && (el.textContent ?? "").length <= 300) return "listener";
  // A grab or move cursor marks something to drag (a card, a handle): its top, as a pointer's.
  if ((style.cursor === "grab" || style.cursor === "move") && parentCursor !== style.cursor) return "grab";
  if (style.cursor === "pointer" && parentCursor !== "pointer" && small(el, 4, box)) return "pointer";
  if (el.getAttribute("tabindex") === "-1" && !/^H[1-6]$/.test(el.tagName)) {
    const t = norm(el.textContent);
    if (t && t.length <= 60) return "focus";
  }
  return null;
}

// Words of an icon's class or picture's file that say nothing of what it does.
const NOISE = new Set([
  "icon",
  "icons",
  "ico",
  "fa",
  "fas",
  "far",
  "fab",
  "fal",
  "glyphicon",
  "bi",
  "material",
  "symbols",
  "outlined",
  "rounded",
  "ui",
  "btn",
  "button",
  "js",
  "is",
  "has",
  "active",
  "selected",
  "hover",
  "focus",
  "disabled",
  "sm",
  "lg",
  "xs",
  "md",
  "xl",
  "png",
  "svg",
  "gif",
  "jpg",
  "jpeg",
  "webp",
  "img",
  "image",
  "images",
  "static",
  "assets",
  "clickable",
  "pointer",
  "inline",
  "block",
  "small",
  "large",
  "left",
  "right",
  "pull",
  "float",
  "clearfix",
  "item",
  "wrapper",
  "container",
  "widget",
  "corner",
  "only",
  "all",
  "tl",
  "tr",
  "bl",
  "br",
]);

const words = (s: string) =>
  s
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 1 && !NOISE.has(w) && !/^\d+$/.test(w) && !/^[0-9a-f]{6,}$/.test(w));

// Classes that mark an icon (a font's glyph, a sprite): what they say names a link or a button.
const ICON_CLASS = /icon|^fa[srlb]?$|^fa-|glyph|^bi-|material|^mdi|octicon|^ti-|sprite/i;

const classesOf = (e: Element) =>
  (typeof e.className === "string" ? e.className : (e.getAttribute("class") ?? ""))
    .split(/\s+/)
    .filter(Boolean);

/**
 * A short name for an icon without text, after its aria-label, title and alt (accname.ts): an inner
 * picture's alt or title, an SVG's title, then what its class or background picture says ("star").
 * `loose`: any class will do (a target only the page's script made); else only an icon's classes.
 */
export function iconName(el: Element, loose: boolean): string {
  const inner = el.querySelector("img[alt]:not([alt='']),[title],svg title");
  if (inner) {
    const t = norm(
      inner.tagName.toLowerCase() === "title"
        ? inner.textContent
        : inner.getAttribute("alt") || inner.getAttribute("title"),
    );
    if (t) return cut(t, 40);
  }
  const from = (s: string) => cut(words(s).slice(0, 3).join(" "), 40);
  // A class's words after a short prefix of its library's (ql-bold, ui-spinner-up): bold, spinner up.
  const fromClass = (c: string) => from(c.replace(/^[a-z]{1,3}-(?=[a-z]+)/i, ""));
  for (const e of [el, ...Array.from(el.querySelectorAll("*")).slice(0, 5)]) {
    const cls = classesOf(e);
    if (!loose && !cls.some((c) => ICON_CLASS.test(c))) continue;
    // The last class that says something: the specific one ("tool star", "fa fa-star"; a spinner's
    // "ui-spinner-up", its "ui-corner-tr" and "ui-button-icon-only" saying nothing).
    const named = cls.map(fromClass).filter(Boolean).pop();
    if (named) return named;
    if (!loose) continue;
    const view = e.ownerDocument.defaultView ?? window;
    const bg = view.getComputedStyle(e).backgroundImage;
    const file = /url\(["']?[^"')]*?([^/"')]+?)(?:\.[a-z0-9]{2,5})?(?:[?#][^"')]*)?["']?\)/i.exec(bg)?.[1];
    if (file && !file.startsWith("data:")) {
      let plain = file;
      try {
        plain = decodeURIComponent(file);
      } catch {
        // a file name with a stray %: read as written
      }
      const n = from(plain);
      if (n) return n;
    }
  }
  return "";
}

// Roles that hold other things: named by a label, never by all the text inside them.
const CONTAINERS = new Set([
  "list",
  "listbox",
  "menu",
  "menubar",
  "tablist",
  "tree",
  "treegrid",
  "grid",
  "table",
  "rowgroup",
  "group",
  "radiogroup",
  "toolbar",
  "dialog",
  "alertdialog",
  "region",
  "navigation",
  "main",
  "banner",
  "contentinfo",
  "complementary",
  "form",
  "search",
  "article",
  "feed",
  "log",
  "textbox",
  "searchbox",
  "combobox",
  "spinbutton",
  "slider",
]);

/** Whether a listed element is named by its own text (so the outline need not read that text again). */
export function namedByText(el: Element): boolean {
  const role = roleOf(el);
  if (role && NAME_FROM_CONTENT.has(role)) return true;
  if (role && CONTAINERS.has(role)) return false;
  return !["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName);
}

/**
 * A listed element's name: its accessible name; else, unless it holds other things, its text (a
 * span link, a tree node, a drag handle); else, with no text at all, what its icon says.
 */
export function nameOf(el: Element): { name: string; icon: boolean } {
  const name = accessibleName(el);
  if (name) return { name, icon: false };
  if (!namedByText(el)) return { name: "", icon: false };
  const text = textOf(el);
  if (text) return { name: text, icon: false };
  // A button with nothing else to name it (an editor's bold button) is named by its class, any class.
  const guessed = iconName(el, true);
  return { name: guessed, icon: guessed !== "" };
}
