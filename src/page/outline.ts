// Page side of read_page: one walk that returns what a model needs to act without a screenshot —
// headings, landmarks, the visible text in reading order, and every interactive element with a
// selector that matches exactly it. Same-origin frames and open shadow roots are read too.
import { allElements, BUTTON_INPUTS, cut, isVisible, norm, textOf } from "./dom.ts";
import { INTERACTIVE } from "./hints.ts";
import { accessibleName } from "./names.ts";
import { roleOf } from "./roles.ts";
import { cssFor, find } from "./selectors.ts";

export type Css = { css: string } | { role: string; name: string } | { text: string };

export interface ReadElement {
  role: string;
  name?: string;
  selector?: Css;
  /** The frames to switch into, outermost first, before using selector. */
  frame?: { css: string }[];
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
}

export interface ReadResult {
  headings: { level: number; text: string }[];
  landmarks: { role: string; name?: string; selector?: Css }[];
  text: string;
  elements: ReadElement[];
  frames?: { selector: Css; url: string; readable: boolean }[];
  truncated?: string;
}

export function readPage(root: Element | null, maxLength: number): ReadResult {
  const scope: Element = root ?? document.body ?? document.documentElement;
  const styleOf = (el: Element) => (el.ownerDocument.defaultView ?? window).getComputedStyle(el);

  const out: ReadResult = {
    headings: [],
    landmarks: [],
    text: "",
    elements: [],
  };
  const frames: NonNullable<ReadResult["frames"]> = [];

  /** A selector that finds exactly el: a unique CSS selector, else role and name, else its text. */
  const selectorFor = (el: Element, inFrame: boolean): Css | undefined => {
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
  };

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

  const describe = (el: Element, frame: { css: string }[]): ReadElement | null => {
    const tag = el.tagName;
    if (tag === "OPTION" && el.closest("select")) return null;
    if (tag === "INPUT" && (el as HTMLInputElement).type === "hidden") return null;
    const role =
      roleOf(el) ??
      ((el as HTMLElement).isContentEditable
        ? "textbox"
        : tag === "INPUT"
          ? (el as HTMLInputElement).type
          : "button");
    const e: ReadElement = { role };
    const name = cut(accessibleName(el), 80);
    if (name) e.name = name;
    const sel = selectorFor(el, frame.length > 0);
    if (sel) e.selector = sel;
    if (frame.length) e.frame = frame;
    if (tag === "A" || tag === "AREA") {
      const href = el.getAttribute("href");
      if (href) e.href = cut(href, 200);
    }
    if (tag === "INPUT" || tag === "TEXTAREA") {
      const input = el as HTMLInputElement;
      const type = tag === "INPUT" ? input.type : "textarea";
      if (type !== "text" && type !== "submit" && type !== "button") e.type = type;
      if (type === "checkbox" || type === "radio") e.checked = input.checked;
      else if (type === "password") e.filled = input.value.length > 0;
      else if (!BUTTON_INPUTS.includes(type) && type !== "file" && input.value)
        e.value = cut(input.value, 200);
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
  };

  // ---- interactive elements, headings and landmarks, frames included -------------------------
  // Elements are described (the costly part: names, unique selectors) only while they can still fit.
  const found: { el: Element; frame: { css: string }[] }[] = [];
  const collect = (start: Element, frame: { css: string }[]) => {
    const els = [start, ...allElements(start)];
    for (const el of els) {
      if (el.tagName === "IFRAME" || el.tagName === "FRAME") {
        if (!isVisible(el)) continue;
        const css = cssFor(el);
        let doc: Document | null = null;
        try {
          doc = (el as HTMLIFrameElement).contentDocument;
        } catch {
          doc = null;
        }
        const src = (el as HTMLIFrameElement).src || "about:blank";
        if (frame.length === 0 && css)
          frames.push({ selector: { css }, url: cut(src, 200), readable: !!doc });
        if (doc?.body && css) collect(doc.body, [...frame, { css }]);
        continue;
      }
      const role = roleOf(el);
      if (el.matches(INTERACTIVE)) {
        // A styled checkbox hides its input behind its label: list it, check acts through the label.
        const boxed =
          el.tagName === "INPUT" &&
          ["checkbox", "radio"].includes((el as HTMLInputElement).type) &&
          !!(el as HTMLInputElement).labels?.length;
        if (isVisible(el) || boxed) found.push({ el, frame });
        continue;
      }
      if (frame.length) continue;
      if (role === "heading" && isVisible(el)) {
        const level = Number(el.tagName.slice(1)) || Number(el.getAttribute("aria-level")) || 2;
        const text = cut(textOf(el), 120);
        if (text) out.headings.push({ level, text });
      } else if (role && LANDMARKS.has(role) && isVisible(el)) {
        const name = cut(accessibleName(el), 60);
        if (role === "form" && !name && !el.id) continue;
        const lm: ReadResult["landmarks"][number] = { role };
        if (name) lm.name = name;
        const sel = selectorFor(el, false);
        if (sel) lm.selector = sel;
        out.landmarks.push(lm);
      }
    }
  };
  collect(scope, []);
  if (frames.length) out.frames = frames;
  let described = 0;
  let spent = 0;
  for (const { el, frame } of found) {
    if (spent > maxLength) break;
    described++;
    const d = describe(el, frame);
    if (!d) continue;
    out.elements.push(d);
    spent += JSON.stringify(d).length;
  }
  const undescribed = found.length - described;

  // ---- the visible text in reading order --------------------------------------------------------
  const lines: string[] = [];
  let line = "";
  const flush = () => {
    const t = norm(line).replace(/\s*\|$/, "");
    if (t && t !== lines[lines.length - 1]) lines.push(t);
    line = "";
  };
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
  const walk = (node: Node, depth: number): void => {
    if (depth > 200) return;
    if (node.nodeType === 3) {
      line += node.textContent ?? "";
      return;
    }
    if (node.nodeType !== 1 && node.nodeType !== 11) return;
    if (node.nodeType === 11) {
      for (const c of Array.from(node.childNodes)) walk(c, depth + 1);
      return;
    }
    const el = node as Element;
    const tag = el.tagName.toUpperCase();
    if (SKIP.has(tag)) {
      line += " ";
      return;
    }
    if (tag === "BR") {
      flush();
      return;
    }
    if (tag === "SLOT") {
      const assigned = (el as HTMLSlotElement).assignedNodes({ flatten: true });
      for (const c of assigned.length ? assigned : Array.from(el.childNodes)) walk(c, depth + 1);
      return;
    }
    const style = styleOf(el);
    if (style.display === "none" || style.visibility === "hidden" || style.visibility === "collapse") return;
    // Table cells share their row's line ("a | b"); other non-inline boxes start a line of their own.
    const d = style.display;
    const block = !d.startsWith("inline") && d !== "contents" && d !== "table-cell";
    const boxy = d.startsWith("inline-") || d === "table-cell";
    if (block) flush();
    else if (boxy) line += " ";
    if (tag === "IFRAME" || tag === "FRAME") {
      let doc: Document | null = null;
      try {
        doc = (el as HTMLIFrameElement).contentDocument;
      } catch {
        doc = null;
      }
      if (doc?.body) {
        flush();
        walk(doc.body, depth + 1);
        flush();
      }
      return;
    }
    const heading = /^H[1-6]$/.test(tag) ? Number(tag[1]) : 0;
    if (heading) line += `${"#".repeat(heading)} `;
    else if (tag === "LI") line += "- ";
    const children = el.shadowRoot ? Array.from(el.shadowRoot.childNodes) : Array.from(el.childNodes);
    for (const c of children) walk(c, depth + 1);
    if (tag === "TD" || tag === "TH") line += " | ";
    if (block) flush();
    else if (boxy) line += " ";
  };
  walk(scope, 0);
  flush();
  let text = lines.join("\n");

  // ---- fit max_length: elements first (they are what the next call needs), then the text ---------
  out.headings = out.headings.slice(0, 60);
  out.landmarks = out.landmarks.slice(0, 30);
  const size = (v: unknown) => JSON.stringify(v).length;
  const elements = out.elements;
  out.elements = [];
  const base = size(out) + 120;
  const avail = Math.max(0, maxLength - base);
  const elSizes = elements.map((e) => size(e) + 1);
  const elTotal = elSizes.reduce((a, b) => a + b, 0);
  let textOmitted = 0;
  let elOmitted = 0;
  if (elTotal + size(text) > avail) {
    const elBudget = Math.max(avail - size(text), Math.floor(avail * 0.65));
    let used = 0;
    let kept = 0;
    while (kept < elements.length && used + (elSizes[kept] as number) <= elBudget)
      used += elSizes[kept++] as number;
    elOmitted = elements.length - kept;
    elements.length = kept;
    const textBudget = avail - used;
    if (size(text) > textBudget) {
      let keep = Math.max(0, textBudget - 2);
      while (keep > 0 && size(text.slice(0, keep)) > textBudget) keep = Math.floor(keep * 0.9);
      const nl = text.lastIndexOf("\n", keep);
      const at = nl > keep * 0.8 ? nl : keep;
      textOmitted = text.length - at;
      text = text.slice(0, at);
    }
  }
  out.elements = elements;
  out.text = text;
  elOmitted += undescribed;
  if (elOmitted || textOmitted) {
    const parts: string[] = [];
    if (elOmitted) parts.push(`${elOmitted} interactive elements`);
    if (textOmitted) parts.push(`${textOmitted} characters of text`);
    out.truncated = `the page is larger than max_length (${maxLength}): ${parts.join(" and ")} were left out. Pass a selector (a landmark's, say) to read one part, or raise max_length`;
  }
  return out;
}
