// Page side of read_page: one walk of the page in reading order (same-origin frames and open shadow
// roots included) into lines of text with the interactive elements where they stand, headings and
// landmarks. The walk is kept in the document (refs.ts) and handed out in parts of at most
// max_length characters of outline: the first read returns the first part and a cursor, each
// cursor the next, until every line has been seen once. Elements are described (names, state,
// refs, a selector for scripts) only for the part that goes out.
import { BUTTON_INPUTS, cut, isVisible, norm, textOf } from "./dom.ts";
import { INTERACTIVE } from "./hints.ts";
import { accessibleName } from "./names.ts";
import { keepRead, readOf, refFloor, refFor, refHigh, registry } from "./refs.ts";
import { type Css, type Entry, type ReadElement, renderEntry } from "./render.ts";
import { roleOf } from "./roles.ts";
import { cssFor, find } from "./selectors.ts";

type Frame = { css: string }[];

type Raw =
  | { k: "line"; d: number; h?: number; li?: boolean; segs: (string | Element)[]; fr: Frame }
  | { k: "landmark"; d: number; el: Element; role: string }
  | { k: "frame"; d: number; el: Element; url: string; readable: boolean; css: string | null };

interface Walked {
  raws: Raw[];
}

export interface ReadArgs {
  /** Characters of outline the part may take. */
  max: number;
  /** The highest ref number the server has seen given (refs count up across documents). */
  floor: number;
  /** A cursor an earlier part gave: `token.read.offset`. */
  cursor?: string;
}

export type ReadOutcome =
  | { entries: Entry[]; next?: string; more?: { lines: number; elements: number }; high: number }
  | { stale: string };

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
const FIELD_ROLES = new Set(["checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"]);
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

function walkPage(scope: Element): Walked {
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

  const walk = (node: Node, depth: number, quiet: boolean, shown: boolean): void => {
    if (depth > 200) return;
    if (node.nodeType === 3) {
      if (!quiet && shown) segs.push(node.textContent ?? "");
      return;
    }
    if (node.nodeType === 11) {
      for (const c of Array.from(node.childNodes)) walk(c, depth + 1, quiet, shown);
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
    if (el.matches(INTERACTIVE)) {
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
        // Its text is its name (the outline shows that); a long one (a card) is read as text too.
        const named = (el as HTMLElement).isContentEditable || (el.textContent ?? "").length <= 100;
        children(el, depth, quiet || named, vis);
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
      for (const c of assigned.length ? assigned : Array.from(el.childNodes)) walk(c, depth + 1, quiet, vis);
      return;
    }
    const role = roleOf(el);
    if (role && LANDMARKS.has(role) && isVisible(el) && (role !== "form" || el.id || accessibleName(el))) {
      flush();
      raws.push({ k: "landmark", d: at.d, el, role });
      at = { d: at.d + 1, fr: at.fr };
      children(el, depth, quiet, vis);
      flush();
      at = { d: at.d - 1, fr: at.fr };
      return;
    }
    if (role === "heading" && isVisible(el)) {
      flush();
      mark = { h: Number(tag.slice(1)) || Number(el.getAttribute("aria-level")) || 2 };
      // A heading inside a link (a card's title) is still a heading of the page.
      if (quiet) segs.push(cut(textOf(el), 120));
      else children(el, depth, quiet, vis);
      flush();
      return;
    }
    if (block) flush();
    else if (boxy) segs.push(" ");
    if (tag === "LI" && block) mark = { li: true };
    children(el, depth, quiet, vis);
    if (tag === "TD" || tag === "TH") segs.push(" | ");
    if (block) flush();
    else if (boxy) segs.push(" ");
  };

  const children = (el: Element, depth: number, quiet: boolean, shown: boolean) => {
    const kids = el.shadowRoot ? Array.from(el.shadowRoot.childNodes) : Array.from(el.childNodes);
    for (const c of kids) walk(c, depth + 1, quiet, shown);
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

/** A URL as one word: what the browser makes of its white space, and brackets that would read as a ref. */
function urlWord(url: string): string {
  return url
    .trim()
    .replace(/[\t\n\r]/g, "")
    .replace(/[ [\]]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A link to the page's own origin, written whole, as the path it comes to. */
function ownPath(href: string, doc: Document): string {
  const origin = doc.location?.origin;
  if (!origin || origin === "null" || !href.toLowerCase().startsWith(origin.toLowerCase())) return href;
  const rest = href.slice(origin.length);
  return rest === "" ? "/" : rest.startsWith("/") ? rest : href;
}

function describe(el: Element, frame: Frame): ReadElement | null {
  const tag = el.tagName;
  if (tag === "OPTION" && el.closest("select")) return null;
  const role =
    roleOf(el) ??
    ((el as HTMLElement).isContentEditable
      ? "textbox"
      : tag === "INPUT"
        ? (el as HTMLInputElement).type
        : "button");
  // A role is a word: the page's own attribute must not write marks of the outline.
  const e: ReadElement = { ref: refFor(el), role: /^[a-z-]*/.exec(role)?.[0] || "generic" };
  const name = cut(accessibleName(el), 80);
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
    else if (!BUTTON_INPUTS.includes(type) && type !== "file" && input.value) e.value = cut(input.value, 200);
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
  return e;
}

function entryOf(raw: Raw): Entry | null {
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
      const d = describe(s, raw.fr);
      if (d) segs.push(d);
    }
  }
  if (!segs.some((s) => typeof s !== "string" || s.trim())) return null;
  const out: Entry = { k: "line", d: raw.d, segs };
  if (raw.h) out.h = raw.h;
  if (raw.li) out.li = true;
  return out;
}

// ---- parts --------------------------------------------------------------------------------------

const CURSOR = /^([a-z0-9]{6})\.(\d{1,9})\.(\d{1,9})$/;
export const CURSOR_STALE =
  "cursor is from before the page navigated or reloaded (or from another frame): call read_page without cursor to read the page again";

export function readPage(root: Element | null, args: ReadArgs): ReadOutcome {
  refFloor(args.floor);
  let walked: Walked;
  let id: number;
  let start = 0;
  if (args.cursor !== undefined) {
    const m = CURSOR.exec(args.cursor);
    const kept = m ? readOf(document, m[1] as string, Number(m[2])) : undefined;
    if (!m || !kept) return { stale: CURSOR_STALE };
    walked = kept as Walked;
    id = Number(m[2]);
    start = Number(m[3]);
    if (start > walked.raws.length) return { stale: CURSOR_STALE };
  } else {
    walked = walkPage(root ?? document.body ?? document.documentElement);
    id = keepRead(document, walked);
  }
  const entries: Entry[] = [];
  let used = 0;
  let i = start;
  for (; i < walked.raws.length; i++) {
    const entry = entryOf(walked.raws[i] as Raw);
    if (!entry) continue;
    const size = renderEntry(entry).length + 1;
    if (entries.length && used + size > args.max) break;
    entries.push(entry);
    used += size;
  }
  const out: ReadOutcome = { entries, high: refHigh() };
  if (i < walked.raws.length) {
    out.next = `${registry(document).token}.${id}.${i}`;
    const rest = walked.raws.slice(i);
    const elements = rest.reduce(
      (n, r) => n + (r.k === "line" ? r.segs.filter((x) => typeof x !== "string").length : 0),
      0,
    );
    out.more = { lines: rest.length, elements };
  }
  return out;
}
