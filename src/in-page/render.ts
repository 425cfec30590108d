// read_page's parts and the outline a model reads of them. Shared: the page library measures a
// part with it while filling max_length, and the server renders the MCP text block with it, so
// the budget is counted on exactly what is sent.

export type Css = { css: string } | { role: string; name: string } | { text: string };

export interface ReadElement {
  ref: string;
  role: string;
  name?: string;
  selector?: Css;
  /** The frames to switch into, outermost first, before using ref or selector. */
  frame?: { css: string }[];
  /** A link's address; a picture's, when no alt names it. */
  href?: string;
  type?: string;
  value?: string;
  /** A password field: whether something is typed in it (its value is never read). */
  filled?: boolean;
  checked?: boolean;
  options?: string[];
  selected?: string | string[];
  placeholder?: string;
  expanded?: boolean;
  required?: boolean;
  disabled?: boolean;
  readonly?: boolean;
  focused?: boolean;
  draggable?: boolean;
  droppable?: boolean;
  /** Named from its class or picture: an icon with no text. */
  icon?: boolean;
  /** What colour it shows (a shape's fill, a box's background): `red`, or `#1e90ff(blue)`. */
  color?: string;
  /** A shape's place in its drawing: `x,y,WxH` (CSS pixels from the drawing's top left). */
  at?: string;
  /** Its box in its viewport (CSS pixels), when read_page was asked for boxes. */
  box?: { x: number; y: number; width: number; height: number };
}

/** One line of the page in reading order: text, and the elements inside it where they stand. */
export interface LineEntry {
  k: "line";
  /** How deep in landmarks and frames it is. */
  d: number;
  /** A heading's level. */
  h?: number;
  /** A list item. */
  li?: boolean;
  segs: (string | ReadElement)[];
}
export interface LandmarkEntry {
  k: "landmark";
  d: number;
  role: string;
  name?: string;
  ref: string;
  selector?: Css;
}
export interface FrameEntry {
  k: "frame";
  d: number;
  ref: string;
  selector?: Css;
  url: string;
  /** Same-origin: its content follows, one level deeper. */
  readable: boolean;
}
export type Entry = LineEntry | LandmarkEntry | FrameEntry;

const q = (s: string) => JSON.stringify(s);

/** An element as the outline shows it: `link "Sign in" [e12] /login`. */
export function renderElement(e: ReadElement): string {
  let out = e.icon ? `icon ${e.role}` : e.role;
  if (e.name) out += ` ${q(e.name)}`;
  out += ` [${e.ref}]`;
  if (e.href) out += ` ${e.href}`;
  if (e.type && e.type !== e.role) out += ` ${e.type}`;
  if (e.value !== undefined) out += ` value=${q(e.value)}`;
  if (e.filled !== undefined) out += e.filled ? " filled" : " empty";
  if (e.checked !== undefined) out += e.checked ? " checked" : " unchecked";
  if (e.selected !== undefined)
    out += ` selected=${Array.isArray(e.selected) ? q(e.selected.join("|")) : q(e.selected)}`;
  if (e.options) out += ` options=${q(e.options.join("|"))}`;
  if (e.placeholder) out += ` placeholder=${q(e.placeholder)}`;
  if (e.expanded !== undefined) out += e.expanded ? " expanded" : " collapsed";
  if (e.required) out += " required";
  if (e.disabled) out += " disabled";
  if (e.readonly) out += " readonly";
  if (e.draggable) out += " draggable";
  if (e.droppable) out += " droppable";
  if (e.focused) out += " focused";
  if (e.color) out += ` color=${e.color}`;
  if (e.at) out += ` at=${e.at}`;
  if (e.box) out += ` box=${e.box.x},${e.box.y},${e.box.width}x${e.box.height}`;
  return out;
}

/** Characters of text per element from which a line is prose, its elements written inline. */
const PROSE = 10;

// A label's text beside its field says the field's name again: the outline leaves it out.
const sameText = (text: string, e: string | ReadElement | undefined) =>
  typeof e === "object" &&
  !!e.name &&
  text.replace(/^\s+|[\s:*]+$/g, "").toLowerCase() === e.name.toLowerCase();

/** One entry's lines of outline (a line of the page may hold several elements). */
export function renderEntry(e: Entry): string {
  const pad = "  ".repeat(e.d);
  if (e.k === "landmark") return `${pad}- ${e.role}${e.name ? ` ${q(e.name)}` : ""} [${e.ref}]:`;
  if (e.k === "frame")
    return `${pad}- frame [${e.ref}] ${e.url}${e.readable ? ":" : " (unread: it did not answer)"}`;
  const mark = e.h ? `${"#".repeat(e.h)} ` : e.li ? "- " : "";
  // A label's text beside its field says the field's name again.
  const segs = e.segs.map((s, i) =>
    typeof s === "string" && !e.h && (sameText(s, e.segs[i - 1]) || sameText(s, e.segs[i + 1])) ? " " : s,
  );
  // Prose keeps its links where they stand; a line that is mostly elements has one per line.
  let chars = 0;
  let els = 0;
  for (const s of segs) {
    if (typeof s === "string") chars += s.replace(/[\s|]+/g, " ").trim().length;
    else els++;
  }
  if (els && chars >= PROSE * els) {
    const inline = segs.map((s) => (typeof s === "string" ? s : ` ${renderElement(s)} `)).join("");
    return `${pad}${mark}${inline.replace(/\s+/g, " ").trim()}`;
  }
  const out: string[] = [];
  // A heading or list item that starts with an element keeps its mark on the element's line.
  let text = mark;
  const flush = () => {
    // Table cells' bars around an element say nothing once it has a line of its own.
    const t = text.replace(/^[\s|]+|[\s|]+$/g, "");
    text = "";
    if (t && !(mark && t === mark.trim())) out.push(`${pad}${t}`);
  };
  for (const s of segs) {
    if (typeof s === "string") {
      text += s;
      continue;
    }
    const atMark = mark !== "" && text.trim() === mark.trim();
    if (!atMark) flush();
    text = "";
    out.push(`${pad}${atMark ? mark : "- "}${renderElement(s)}`);
  }
  flush();
  return out.join("\n");
}

/** The part's outline, one entry after another. */
export function renderEntries(entries: Entry[]): string {
  return entries.map(renderEntry).join("\n");
}
