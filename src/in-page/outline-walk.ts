// Walking the page for read_page: the document in reading order (same-origin frames, open shadow
// roots and the closed ones the hints reached included) into raw lines of text and elements,
// landmarks and frames, not yet described. What a person cannot see is left out: display and
// visibility, opacity 0, a font size of 0, and what an opaque element paints over (seen.ts).

import { accessibleName } from "./accname.ts";
import { clickSignal, DRAGGABLE, DROPPABLE, namedByText } from "./actable.ts";
import { cut, isVisible, textOf } from "./dom.ts";
import { dropHinted, rootOf } from "./hinted.ts";
import { INTERACTIVE } from "./hints.ts";
import { drawing, pictured, shapesOf, svgName, swatch } from "./media.ts";
import { split, tidy, urlWord } from "./outline-lines.ts";
import { roleOf } from "./roles.ts";
import { coverAt, coveredBy, inView, textCovered } from "./seen.ts";
import { cssFor } from "./selectors.ts";
import { ownText, subTargets } from "./targets.ts";

export type Frame = { css: string }[];

export type Raw =
  | { k: "line"; d: number; h?: number; li?: boolean; segs: (string | Element)[]; fr: Frame }
  | { k: "landmark"; d: number; el: Element; role: string }
  | {
      k: "frame";
      d: number;
      el: Element;
      url: string;
      /** This realm reads into it (same origin, and a CSS selector enters it). */
      readable: boolean;
      css: string | null;
      /** Its window, for the server to read in its own context what this realm cannot (null: too small to). */
      win: Window | null;
    };

/** What the walk found out of an element that describing it cannot tell again. */
export interface Note {
  /** A target holding targets of its own is named by its own text, without theirs. */
  name?: string;
  /** Listed for what it shows, not as a target: a coloured box. */
  role?: "box";
  /** A select read as the root: its options are lines of their own. */
  options?: true;
}

export interface Walked {
  raws: Raw[];
  notes: Map<Element, Note>;
}

const LANDMARKS = new Set([
  "banner",
  "navigation",
  "main",
  "complementary",
  "contentinfo",
  "search",
  "region",
  "form",
]);
const SKIP = new Set([
  "SCRIPT",
  "STYLE",
  "NOSCRIPT",
  "TEMPLATE",
  "HEAD",
  "SELECT",
  "TEXTAREA",
  "INPUT",
  "OPTION",
  "SVG",
  "CANVAS",
  "VIDEO",
  "AUDIO",
  "OBJECT",
]);
const CONTROLS = new Set(["INPUT", "SELECT", "TEXTAREA"]);
const CLEAR = "rgba(0, 0, 0, 0)";

/** What a node is walked under: how its parent's text and targets are taken, and whether it shows. */
interface At {
  /** Text is not read (it names the target it is in). */
  quiet: boolean;
  /** No target the page made is looked for (it is inside one). */
  inert: boolean;
  /** visibility: visible. */
  shown: boolean;
  /** The element whose children these are, and its style: asked of its text only when it has some. */
  el: Element | null;
  style: CSSStyleDeclaration | null;
  /** Its text cannot be seen: opacity 0 on it or above it, a font too small (asked once, then kept). */
  unseen?: boolean;
  /**
   * Whether the nearest block (or positioned box) around is in the viewport, asked once for all its
   * text and targets (only what is in view can be asked whether something paints over it).
   */
  view: { el: Element; v?: boolean } | null;
  cursor: string;
}

const TOP: At = {
  quiet: false,
  inert: false,
  shown: true,
  el: null,
  style: null,
  view: null,
  cursor: "",
};

const OPAQUE = { opacityProperty: true };
/** Whether the browser renders `el` (with `OPAQUE`: and no opacity 0 on it or above it hides it). */
const seenAt = (el: Element, o: object) =>
  (el as Element & { checkVisibility(o: object): boolean }).checkVisibility(o);
/** Whether opacity 0 on `el` or above it hides it. */
const faded = (el: Element) => !seenAt(el, OPAQUE);

/** Whether the block `c` is under is in the viewport (asked once a block). */
function inViewOf(c: At): boolean {
  const box = c.view;
  if (!box) return false;
  box.v ??= inView(box.el);
  return box.v;
}

// ---- the walk ---------------------------------------------------------------------------------

export function walkPage(scope: Element): Walked {
  const raws: Raw[] = [];
  const notes = new Map<Element, Note>();
  /** Items inside a target that are targets of their own (a menu's entries, a tree's leaves). */
  const forced = new Set<Element>();
  let segs: (string | Element)[] = [];
  let mark: { h?: number; li?: boolean } = {};
  let at = { d: 0, fr: [] as Frame };

  const flush = () => {
    const line = tidy(segs);
    segs = [];
    const m = mark;
    mark = {};
    if (!line.length) return;
    for (const [i, part] of split(line).entries()) {
      const raw: Raw = { k: "line", d: at.d, segs: part, fr: at.fr };
      if (i === 0 && m.h) raw.h = m.h;
      if (i === 0 && m.li) raw.li = true;
      raws.push(raw);
    }
  };

  /** Whether `el` is listed as something to act on: "no", "yes", or "hidden" (painted over: skip it). */
  const listed = (el: Element, style: CSSStyleDeclaration, c: At): "no" | "yes" | "hidden" => {
    const none = style.display === "none";
    const native =
      el.matches(INTERACTIVE) || el.matches(DRAGGABLE) || el.matches(DROPPABLE) || dropHinted(el);
    let rect: DOMRect | null = null;
    const box = () => {
      rect ??= el.getBoundingClientRect();
      return rect;
    };
    if (!native && (none || (!forced.has(el) && (c.inert || clickSignal(el, style, c.cursor, box) === null))))
      return "no";
    // A styled checkbox hides its input behind its label: list it, check acts through the label.
    const boxed =
      el.tagName === "INPUT" &&
      ["checkbox", "radio"].includes((el as HTMLInputElement).type) &&
      !!(el as HTMLInputElement).labels?.length;
    if (boxed) return "yes";
    if (none) return "no";
    // What isVisible asks, with the style and box in hand (the box is asked once, for the cover too).
    if (style.display === "contents" || el.tagName === "OPTION") return isVisible(el) ? "yes" : "no";
    const r = box();
    if (style.visibility !== "visible" || r.width <= 0 || r.height <= 0) return "no";
    // Under opacity 0 only a field stays (a file input over its styled button): a person sees no text.
    if (CONTROLS.has(el.tagName) ? !seenAt(el, {}) : !seenAt(el, OPAQUE)) return "hidden";
    // Out of view, nothing can be asked to paint over it: skipped when its block is known out of view.
    return c.view?.v !== false && coverAt(el, r) ? "hidden" : "yes";
  };

  const text = (node: Node, c: At) => {
    if (c.quiet || !c.shown) return;
    const t = node.textContent ?? "";
    if (t.trim()) {
      c.unseen ??= !!c.el && (faded(c.el) || Number.parseFloat(c.style?.fontSize ?? "16") < 1);
      if (c.unseen || (inViewOf(c) && textCovered(node as Text))) return;
    }
    segs.push(t);
  };

  // `c.cursor` is the parent's: an element whose own pointer cursor its parent lacks starts a click target.
  const walk = (node: Node, depth: number, c: At): void => {
    if (depth > 200) return;
    if (node.nodeType === 3) {
      text(node, c);
      return;
    }
    if (node.nodeType === 11) {
      for (const k of Array.from(node.childNodes)) walk(k, depth + 1, c);
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node as Element;
    const tag = el.tagName.toUpperCase();
    if (tag === "IFRAME" || tag === "FRAME") {
      if (isVisible(el) && !faded(el)) frame(el, depth);
      return;
    }
    const style = (el.ownerDocument.defaultView ?? window).getComputedStyle(el);
    const none = style.display === "none";
    const d = style.display;
    const block = !d.startsWith("inline") && d !== "contents" && d !== "table-cell";
    const boxy = d.startsWith("inline-") || d === "table-cell";
    const inner: At = {
      quiet: c.quiet,
      inert: c.inert,
      shown: style.visibility === "visible",
      el,
      style,
      // A block (a box placed on its own is one) is asked for itself; what flows inside shares its answer.
      view: block && !boxy ? { el } : c.view,
      cursor: style.cursor,
    };
    const titled = /^H[1-6]$/.test(tag) || el.getAttribute("role") === "heading";
    if (titled && roleOf(el) === "heading" && !none && isVisible(el) && !faded(el)) {
      heading(el, depth, c, inner, style);
      return;
    }
    const is = listed(el, style, c);
    if (is === "hidden") return;
    if (is === "yes") {
      const subs = SKIP.has(tag) || el.matches(INTERACTIVE) ? [] : subTargets(el);
      for (const s of subs) forced.add(s);
      const own = subs.length ? ownText(el, subs) : "";
      // A target whose text is all its items' (a menu's box) is not one itself: its items are.
      if (!subs.length || own) {
        if (block && !none) flush();
        else if (boxy) segs.push(" ");
        segs.push(el);
        if (SKIP.has(tag) || none) return;
        if (own) notes.set(el, { name: own });
        // Its text is its name (the outline shows that); a long one (a card), or a list's, is read as text too.
        const named =
          !subs.length &&
          ((el as HTMLElement).isContentEditable ||
            ((el.textContent ?? "").length <= 100 && namedByText(el)));
        children(el, depth, {
          ...inner,
          quiet: c.quiet || named || !!own,
          inert: (c.inert || named) && !subs.length,
        });
        if (block) flush();
        else if (boxy) segs.push(" ");
        return;
      }
    }
    if (none) return;
    if (tag === "IMG" || tag === "SVG") {
      if (!c.quiet && inner.shown && !faded(el)) picture(el, tag);
      return;
    }
    if (SKIP.has(tag)) {
      segs.push(" ");
      return;
    }
    if (tag === "BR") {
      flush();
      return;
    }
    if (tag === "SLOT") {
      const assigned = (el as HTMLSlotElement).assignedNodes({ flatten: true });
      for (const k of assigned.length ? assigned : Array.from(el.childNodes)) walk(k, depth + 1, inner);
      return;
    }
    const role = roleOf(el);
    if (role && LANDMARKS.has(role) && isVisible(el) && (role !== "form" || el.id || accessibleName(el))) {
      flush();
      raws.push({ k: "landmark", d: at.d, el, role });
      at = { d: at.d + 1, fr: at.fr };
      children(el, depth, inner);
      flush();
      at = { d: at.d - 1, fr: at.fr };
      return;
    }
    if (
      !c.quiet &&
      inner.shown &&
      el.childElementCount === 0 &&
      style.backgroundColor !== CLEAR &&
      swatch(el, style) &&
      !coveredBy(el)
    ) {
      notes.set(el, { role: "box" });
      segs.push(" ", el, " ");
      return;
    }
    if (block) flush();
    else if (boxy) segs.push(" ");
    if (tag === "LI" && block) mark = { li: true };
    children(el, depth, inner);
    if (tag === "TD" || tag === "TH") segs.push(" | ");
    if (block) flush();
    else if (boxy) segs.push(" ");
  };

  // A heading stays a heading when the page made it clickable too (an <h1 ondblclick>): its line
  // holds it as an element, named by its text.
  const heading = (el: Element, depth: number, c: At, inner: At, style: CSSStyleDeclaration) => {
    flush();
    mark = { h: Number(el.tagName.slice(1)) || Number(el.getAttribute("aria-level")) || 2 };
    // A heading inside a link (a card's title) is still a heading of the page.
    const is = c.quiet ? "no" : listed(el, style, c);
    if (c.quiet) segs.push(cut(textOf(el), 120));
    else if (is === "yes") segs.push(el);
    else if (is === "no") children(el, depth, inner);
    flush();
  };

  // An <img> by its alt or file; an SVG icon by its name; an SVG drawing by its shapes.
  const picture = (el: Element, tag: string) => {
    if (tag === "IMG") {
      if (pictured(el) && !coveredBy(el)) segs.push(" ", el, " ");
      return;
    }
    if (!drawing(el)) {
      if (svgName(el) && isVisible(el) && !coveredBy(el)) segs.push(" ", el, " ");
      return;
    }
    if (!isVisible(el) || coveredBy(el)) return;
    flush();
    const { shapes, more } = shapesOf(el);
    segs.push(el, ...shapes);
    if (more) segs.push(` … ${more} more shapes`);
    flush();
  };

  const children = (el: Element, depth: number, c: At) => {
    const root = rootOf(el);
    for (const k of Array.from((root ?? el).childNodes)) walk(k, depth + 1, c);
  };

  const frame = (el: Element, depth: number) => {
    flush();
    let doc: Document | null = null;
    try {
      doc = (el as HTMLIFrameElement).contentDocument;
    } catch {
      doc = null;
    }
    const css = cssFor(el);
    const url = cut(urlWord((el as HTMLIFrameElement).src || "about:blank"), 200);
    const readable = !!doc?.body && !!css;
    // A tracking pixel of a frame is listed, not read.
    const r = el.getBoundingClientRect();
    const win =
      readable || (r.width >= 10 && r.height >= 10) ? (el as HTMLIFrameElement).contentWindow : null;
    raws.push({ k: "frame", d: at.d, el, url, readable, css, win });
    if (!readable || !doc?.body || !css) return;
    const outer = at;
    at = { d: outer.d + 1, fr: [...outer.fr, { css }] };
    walk(doc.body, depth + 1, TOP);
    flush();
    at = outer;
  };

  walk(scope, 0, TOP);
  flush();
  return { raws, notes };
}
