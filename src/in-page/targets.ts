// Page side: targets inside a target. A region the page made clickable (a pointer cursor over a whole
// e-mail row, a menu, an open tree folder) often holds things to click of their own: an element with
// its own listener or inline handler (the row's Reply and Forward), or items alike side by side (a
// menu's entries, a folder's files). Those get refs of their own; the region is named by the text
// that is its own.

import { HANDLERS, HREFLESS } from "./actable.ts";
import { cut, norm } from "./dom.ts";
import { listened } from "./hinted.ts";

/** Tags that format text inside a sentence: two of them side by side are not a list of items. */
const FORMATTING = new Set([
  "B",
  "I",
  "EM",
  "STRONG",
  "U",
  "S",
  "SMALL",
  "SUP",
  "SUB",
  "CODE",
  "MARK",
  "ABBR",
  "TIME",
  "BR",
  "WBR",
  "SPAN",
  "FONT",
]);
/** A region bigger than this (elements inside) is not searched: it is a page part, not a target. */
const MAX_INSIDE = 300;
const ITEM_TEXT = 80;

const textIn = (el: Element) => norm(el.textContent);

/** The elements inside `el` that are click targets of their own (none: `el` is one target). */
export function subTargets(el: Element): Element[] {
  if (!el.firstElementChild) return [];
  const inside = el.querySelectorAll("*");
  if (!inside.length || inside.length > MAX_INSIDE) return [];
  const out = new Set<Element>();
  const alike = new Map<Element, Map<string, Element[]>>();
  for (const d of Array.from(inside)) {
    if (listened(d) || d.matches(HANDLERS) || d.matches(HREFLESS)) out.add(d);
    const p = d.parentElement;
    const cls = d.getAttribute("class")?.trim() ?? "";
    if (!p || (FORMATTING.has(d.tagName) && !cls)) continue;
    const byKind = alike.get(p) ?? new Map<string, Element[]>();
    alike.set(p, byKind);
    const key = `${d.tagName}.${cls}`;
    byKind.set(key, [...(byKind.get(key) ?? []), d]);
  }
  for (const byKind of alike.values()) {
    for (const items of byKind.values()) {
      if (items.length < 2) continue;
      const texts = items.map(textIn);
      if (texts.every((t) => t && t.length <= ITEM_TEXT)) for (const i of items) out.add(i);
    }
  }
  // One inside another: the outer is the target (its text names it).
  return Array.from(out).filter((s) => !Array.from(out).some((o) => o !== s && o.contains(s)));
}

/** `el`'s own text: what is left of it once the text of `subs` is taken out. */
export function ownText(el: Element, subs: Element[]): string {
  const doc = el.ownerDocument;
  const walker = doc.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  const parts: string[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const node = n;
    if (!subs.some((s) => s.contains(node))) parts.push(node.textContent ?? "");
  }
  return cut(norm(parts.join(" ")), 80);
}
