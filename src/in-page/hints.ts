// Page side: what the page holds nearest to a selector that matched nothing, and short element
// descriptions for messages and script results.

import { accessibleName, fieldsOf, labelsOf } from "./accname.ts";
import { allElements, cut, isVisible, norm, SKIP_TEXT, textOf } from "./dom.ts";
import { roleOf } from "./roles.ts";
import { cssFor, type PageSelector } from "./selectors.ts";

function bigrams(s: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length - 1; i++) out.push(s.slice(i, i + 2));
  return out;
}

export function similarity(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (!x || !y) return 0;
  if (x === y) return 2;
  if (y.includes(x) || x.includes(y)) return 1 + Math.min(x.length, y.length) / Math.max(x.length, y.length);
  const bx = bigrams(x);
  const by = bigrams(y);
  if (!bx.length || !by.length) return 0;
  let common = 0;
  const pool = [...by];
  for (const g of bx) {
    const i = pool.indexOf(g);
    if (i >= 0) {
      common++;
      pool.splice(i, 1);
    }
  }
  return (2 * common) / (bx.length + by.length);
}

export function nearest(want: string, candidates: string[], n: number): string[] {
  const unique = Array.from(new Set(candidates.map((c) => cut(norm(c), 60)).filter(Boolean)));
  return unique
    .map((c) => [c, similarity(want, c)] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([c]) => c);
}

export const INTERACTIVE =
  "a[href],button,input:not([type=hidden]),select,textarea,summary,[contenteditable]:not([contenteditable=false]),[role=button],[role=link],[role=checkbox],[role=radio],[role=switch],[role=tab],[role=menuitem],[role=option],[role=combobox],[role=textbox],[role=searchbox],[role=treeitem],[role=menuitemcheckbox],[role=menuitemradio],[role=slider],[role=spinbutton],[onclick],[tabindex]:not([tabindex='-1'])";

/** A few things on the page nearest to what `sel` asked for, for a "nothing matched" message. */
export function hints(sel: PageSelector): { what: string; items: string[]; roles?: string[] } {
  if ("text" in sel) {
    const texts: string[] = [];
    for (const el of allElements(document)) {
      if (SKIP_TEXT.has(el.tagName)) continue;
      const own = Array.from(el.childNodes)
        .filter((n) => n.nodeType === 3)
        .map((n) => n.textContent ?? "")
        .join(" ");
      const clickable = el.matches(INTERACTIVE);
      const t = clickable ? textOf(el) : norm(own);
      if (t && isVisible(el)) texts.push(t);
    }
    return { what: "visible texts", items: nearest(sel.text, texts, 5) };
  }
  if ("label" in sel) {
    const names: string[] = [];
    for (const el of fieldsOf(document)) {
      if (!isVisible(el)) continue;
      const l = labelsOf(el);
      names.push(...l.primary, l.placeholder);
    }
    return { what: "field labels", items: nearest(sel.label, names, 5) };
  }
  if ("role" in sel) {
    const counts = new Map<string, number>();
    const names: string[] = [];
    const want = sel.role.trim().toLowerCase();
    for (const el of allElements(document)) {
      const r = roleOf(el);
      if (!r || !isVisible(el)) continue;
      counts.set(r, (counts.get(r) ?? 0) + 1);
      if (r === want) names.push(accessibleName(el));
    }
    const roles = Array.from(counts.entries())
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([r, c]) => `${r} (${c})`);
    return {
      what: `names of ${want} elements`,
      items: sel.name === undefined ? [] : nearest(sel.name, names, 5),
      roles,
    };
  }
  if ("ref" in sel) return { what: "refs", items: [] };
  // A CSS or XPath query: rank elements by how well the query's words match their attributes and name.
  const query = "css" in sel ? sel.css : sel.xpath;
  const words = (t: string) =>
    t
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length > 1);
  const want = words(query).filter(
    (w) =>
      ![
        "div",
        "span",
        "input",
        "button",
        "contains",
        "text",
        "and",
        "or",
        "nth",
        "of",
        "type",
        "child",
      ].includes(w),
  );
  const ranked: [string, number][] = [];
  for (const el of Array.from(document.querySelectorAll(`${INTERACTIVE},[id]`)).slice(0, 400)) {
    if (!isVisible(el)) continue;
    const q = cssFor(el);
    if (!q) continue;
    const name = accessibleName(el);
    const attrs = [
      "id",
      "name",
      "type",
      "class",
      "placeholder",
      "aria-label",
      "href",
      "value",
      "for",
      "title",
    ]
      .map((a) => el.getAttribute(a) ?? "")
      .join(" ");
    const have = words(`${attrs} ${name} ${el.tagName} ${roleOf(el) ?? ""}`);
    let score = 0;
    for (const w of want) score += Math.max(0, ...have.map((h) => similarity(w, h)));
    ranked.push([`${q} (${roleOf(el) ?? el.tagName.toLowerCase()} "${cut(name, 30)}")`, score]);
  }
  const items = ranked
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([d]) => d);
  return { what: "elements with selectors", items };
}

/** A short description of an element for a message or a script result: <button#send.primary> "Send". */
export function describe(el: Element): string {
  let s = `<${el.tagName.toLowerCase()}`;
  if (el.id) s += `#${el.id}`;
  const cls = (el.getAttribute("class") ?? "").trim().split(/\s+/).filter(Boolean).slice(0, 2);
  if (cls.length) s += `.${cls.join(".")}`;
  s += ">";
  const name = cut(accessibleName(el) || textOf(el), 40);
  return name ? `${s} "${name}"` : s;
}
