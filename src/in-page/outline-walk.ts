// Walking the page for read_page: the document in reading order (same-origin frames and open shadow
// roots included) into raw lines of text and elements, landmarks and frames, not yet described.

import { accessibleName } from "./accname.ts";
import { clickSignal, DRAGGABLE, DROPPABLE, namedByText } from "./actable.ts";
import { cut, isVisible, textOf } from "./dom.ts";
import { INTERACTIVE } from "./hints.ts";
import { roleOf } from "./roles.ts";
import { cssFor } from "./selectors.ts";

export type Frame = { css: string }[];

export type Raw =
  | { k: "line"; d: number; h?: number; li?: boolean; segs: (string | Element)[]; fr: Frame }
  | { k: "landmark"; d: number; el: Element; role: string }
  | { k: "frame"; d: number; el: Element; url: string; readable: boolean; css: string | null };

export interface Walked {
  raws: Raw[];
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
/** A line longer than this (characters, an element counting LINE_EL) is cut into several. */
const LINE_CAP = 1000;
const LINE_EL = 60;

// ---- the walk ---------------------------------------------------------------------------------

export function walkPage(scope: Element): Walked {
  const raws: Raw[] = [];
  let segs: (string | Element)[] = [];
  let mark: { h?: number; li?: boolean } = {};
  let at = { d: 0, fr: [] as Frame };
  let lastText = "";

  const flush = () => {
    const line = tidy(segs);
    segs = [];
    const m = mark;
    mark = {};
    if (!line.length) return;
    const plain = line.every((s) => typeof s === "string");
    if (plain && !m.h && line[0] === lastText) return;
    lastText = plain ? (line[0] as string) : "";
    for (const [i, part] of split(line).entries()) {
      const raw: Raw = { k: "line", d: at.d, segs: part, fr: at.fr };
      if (i === 0 && m.h) raw.h = m.h;
      if (i === 0 && m.li) raw.li = true;
      raws.push(raw);
    }
  };

  // `cursor` is the parent's: an element whose own pointer cursor its parent lacks starts a click target.
  const walk = (node: Node, depth: number, quiet: boolean, shown: boolean, cursor = ""): void => {
    if (depth > 200) return;
    if (node.nodeType === 3) {
      if (!quiet && shown) segs.push(node.textContent ?? "");
      return;
    }
    if (node.nodeType === 11) {
      for (const c of Array.from(node.childNodes)) walk(c, depth + 1, quiet, shown, cursor);
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node as Element;
    const tag = el.tagName.toUpperCase();
    if (tag === "IFRAME" || tag === "FRAME") {
      if (!isVisible(el)) return;
      frame(el, depth);
      return;
    }
    const style = (el.ownerDocument.defaultView ?? window).getComputedStyle(el);
    const none = style.display === "none";
    const vis = style.visibility === "visible";
    const d = style.display;
    const block = !d.startsWith("inline") && d !== "contents" && d !== "table-cell";
    const boxy = d.startsWith("inline-") || d === "table-cell";
    const own = style.cursor;
    if (
      el.matches(INTERACTIVE) ||
      el.matches(DRAGGABLE) ||
      el.matches(DROPPABLE) ||
      (!quiet && !none && clickSignal(el, style, cursor) !== null)
    ) {
      // A styled checkbox hides its input behind its label: list it, check acts through the label.
      const boxed =
        tag === "INPUT" &&
        ["checkbox", "radio"].includes((el as HTMLInputElement).type) &&
        !!(el as HTMLInputElement).labels?.length;
      if ((!none && isVisible(el)) || boxed) {
        if (block && !none) flush();
        else if (boxy) segs.push(" ");
        segs.push(el);
        if (SKIP.has(tag) || none) return;
        // Its text is its name (the outline shows that); a long one (a card), or a list's, is read as text too.
        const named =
          (el as HTMLElement).isContentEditable || ((el.textContent ?? "").length <= 100 && namedByText(el));
        children(el, depth, quiet || named, vis, own);
        if (block) flush();
        else if (boxy) segs.push(" ");
        return;
      }
    }
    if (none) return;
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
      for (const c of assigned.length ? assigned : Array.from(el.childNodes))
        walk(c, depth + 1, quiet, vis, own);
      return;
    }
    const role = roleOf(el);
    if (role && LANDMARKS.has(role) && isVisible(el) && (role !== "form" || el.id || accessibleName(el))) {
      flush();
      raws.push({ k: "landmark", d: at.d, el, role });
      at = { d: at.d + 1, fr: at.fr };
      children(el, depth, quiet, vis, own);
      flush();
      at = { d: at.d - 1, fr: at.fr };
      return;
    }
    if (role === "heading" && isVisible(el)) {
      flush();
      mark = { h: Number(tag.slice(1)) || Number(el.getAttribute("aria-level")) || 2 };
      // A heading inside a link (a card's title) is still a heading of the page.
      if (quiet) segs.push(cut(textOf(el), 120));
      else children(el, depth, quiet, vis, own);
      flush();
      return;
    }
    if (block) flush();
    else if (boxy) segs.push(" ");
    if (tag === "LI" && block) mark = { li: true };
    children(el, depth, quiet, vis, own);
    if (tag === "TD" || tag === "TH") segs.push(" | ");
    if (block) flush();
    else if (boxy) segs.push(" ");
  };

  const children = (el: Element, depth: number, quiet: boolean, shown: boolean, cursor: string) => {
    const kids = el.shadowRoot ? Array.from(el.shadowRoot.childNodes) : Array.from(el.childNodes);
    for (const c of kids) walk(c, depth + 1, quiet, shown, cursor);
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
    raws.push({ k: "frame", d: at.d, el, url, readable, css });
    if (!readable || !doc?.body || !css) return;
    const outer = at;
    at = { d: outer.d + 1, fr: [...outer.fr, { css }] };
    lastText = "";
    walk(doc.body, depth + 1, false, true);
    flush();
    at = outer;
  };

  walk(scope, 0, false, true);
  flush();
  return { raws };
}

/** Adjacent text joined, white space collapsed, the line trimmed (and a table row's last " |"). */
function tidy(segs: (string | Element)[]): (string | Element)[] {
  const out: (string | Element)[] = [];
  for (const s of segs) {
    const last = out[out.length - 1];
    if (typeof s === "string" && typeof last === "string") out[out.length - 1] = last + s;
    else out.push(s);
  }
  for (let i = 0; i < out.length; i++) {
    const s = out[i];
    if (typeof s === "string") out[i] = s.replace(/\s+/g, " ");
  }
  const first = out[0];
  if (typeof first === "string") out[0] = first.trimStart();
  const last = out[out.length - 1];
  if (typeof last === "string") out[out.length - 1] = last.replace(/[\s|]+$/, "").trimEnd();
  return out.filter((s) => typeof s !== "string" || s.trim() !== "" || s === " ");
}

/** A line cut into pieces of about LINE_CAP, text at a space. */
function split(line: (string | Element)[]): (string | Element)[][] {
  const parts: (string | Element)[][] = [];
  let cur: (string | Element)[] = [];
  let size = 0;
  const push = () => {
    const t = tidy(cur);
    if (t.some((s) => typeof s !== "string" || s.trim())) parts.push(t);
    cur = [];
    size = 0;
  };
  for (const s of line) {
    if (typeof s !== "string") {
      if (size + LINE_EL > LINE_CAP) push();
      cur.push(s);
      size += LINE_EL;
      continue;
    }
    let rest = s;
    while (size + rest.length > LINE_CAP) {
      const room = LINE_CAP - size;
      if (room > 0) {
        const space = rest.lastIndexOf(" ", room);
        const at = space > 0 ? space : room;
        cur.push(rest.slice(0, at));
        rest = rest.slice(at);
      }
      push();
    }
    if (rest) {
      cur.push(rest);
      size += rest.length;
    }
  }
  push();
  return parts;
}

/** A URL as one word: what the browser makes of its white space, and brackets that would read as a ref. */
export function urlWord(url: string): string {
  return url
    .trim()
    .replace(/[\t\n\r]/g, "")
    .replace(/[ [\]]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
