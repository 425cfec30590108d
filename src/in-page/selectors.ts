// Page side: finding elements by selector (css, xpath, visible text, label, role and name), and a
// short CSS selector that finds exactly one element again.

import { accessibleName, fieldsOf, labelsOf, trimLabel } from "./accname.ts";
import {
  allElements,
  css,
  deepest,
  isVisible,
  low,
  norm,
  SKIP_TEXT,
  shadowRoots,
  textOf,
  xpath,
} from "./dom.ts";
import { resolveRef } from "./refs.ts";
import { ROLE_TAGS, roleOf } from "./roles.ts";

export type PageSelector =
  | { css: string }
  | { xpath: string }
  | { text: string; exact?: boolean; nth?: number; within?: string }
  | { label: string }
  | { role: string; name?: string }
  | { ref: string };

export interface Found {
  /** Matches, visible ones first, each group in document order. */
  els: Element[];
  visible: number;
  /** Set when the selector itself is broken (or a ref names nothing here): which kind and why. */
  invalid?: { kind: "css" | "xpath" | "ref"; reason: string; gone?: true; within?: true };
  /** With nth past the visible matches: how many there are. */
  short?: number;
}

/** Whether `inner` is `outer` or inside it, shadow trees included. */
export function contains(outer: Element, inner: Element): boolean {
  let n: Node | null = inner;
  while (n) {
    if (n === outer) return true;
    n = n.parentNode ?? ((n as ShadowRoot).host || null);
  }
  return false;
}

/**
 * A text selector written /pattern/flags: its regular expression (g and y dropped: a match is a
 * yes or no), else null; a pattern the engine refuses throws.
 */
export function textRegex(text: string): RegExp | null {
  const m = /^\/(.+)\/([dgimsuvy]*)$/s.exec(text);
  return m ? new RegExp(m[1] as string, (m[2] as string).replace(/[gy]/g, "")) : null;
}

export function byText(text: string, exact: boolean): Element[] {
  let regex: RegExp | null = null;
  try {
    regex = textRegex(text);
  } catch {
    return [];
  }
  if (regex) {
    // A search of the shown text: the innermost elements whose text matches.
    const hits = allElements(document).filter((el) => !SKIP_TEXT.has(el.tagName) && regex.test(textOf(el)));
    return deepest(hits);
  }
  const want = exact ? norm(text) : low(text);
  if (!want) return [];
  const hits: Element[] = [];
  for (const el of allElements(document)) {
    if (SKIP_TEXT.has(el.tagName)) continue;
    const raw = el.tagName === "INPUT" ? (el as HTMLInputElement).value : el.textContent;
    if (!raw?.toLowerCase().includes(want.split(" ")[0]!.toLowerCase())) continue;
    const shown = textOf(el);
    if (exact ? shown === want : shown.toLowerCase().includes(want)) hits.push(el);
  }
  return deepest(hits);
}
export function byRole(role: string, name: string | undefined): Element[] {
  const want = role.trim().toLowerCase();
  const tags = ROLE_TAGS[want];
  const query = tags ? `${tags},[role]` : "[role]";
  const pool: Element[] = [];
  for (const el of css(query)) pool.push(el);
  // shadow roots hold their own matches too when the document also had some
  for (const root of shadowRoots(document))
    for (const el of Array.from(root.querySelectorAll(query))) pool.push(el);
  const withRole = Array.from(new Set(pool)).filter((el) => roleOf(el) === want);
  if (name === undefined) return withRole;
  const n = low(name);
  const named = withRole.map((el) => [el, low(accessibleName(el))] as const);
  const exact = named.filter(([, got]) => got === n).map(([el]) => el);
  return exact.length ? exact : named.filter(([, got]) => got.includes(n)).map(([el]) => el);
}
export function byLabel(label: string): Element[] {
  const want = trimLabel(label);
  if (!want) return [];
  const fields = fieldsOf(document).map((el) => ({ el, names: labelsOf(el) }));
  const tiers = [
    fields.filter((f) => f.names.primary.some((p) => trimLabel(p) === want)),
    fields.filter((f) => trimLabel(f.names.placeholder) === want),
    fields.filter((f) => f.names.primary.some((p) => low(p).includes(want))),
    fields.filter((f) => low(f.names.placeholder).includes(want)),
  ];
  for (const tier of tiers) if (tier.length) return tier.map((f) => f.el);
  return [];
}
export function find(sel: PageSelector): Found {
  let els: Element[] = [];
  if ("css" in sel) {
    try {
      els = css(sel.css);
    } catch (e) {
      return { els: [], visible: 0, invalid: { kind: "css", reason: String((e as Error).message || e) } };
    }
  } else if ("xpath" in sel) {
    try {
      els = xpath(sel.xpath);
    } catch (e) {
      return { els: [], visible: 0, invalid: { kind: "xpath", reason: String((e as Error).message || e) } };
    }
  } else if ("ref" in sel) {
    // A ref is the element read_page saw: no search, and no wait when it is gone.
    const got = resolveRef(sel.ref);
    if ("why" in got) {
      const invalid: Found["invalid"] = { kind: "ref", reason: got.why };
      if (got.gone) invalid.gone = true;
      return { els: [], visible: 0, invalid };
    }
    els = [got.el];
  } else if ("text" in sel) {
    els = byText(sel.text, sel.exact !== false);
    if (sel.within !== undefined) {
      const got = resolveRef(sel.within);
      if ("why" in got)
        return { els: [], visible: 0, invalid: { kind: "ref", reason: got.why, within: true } };
      const scope = got.el;
      els = els.filter((el) => el !== scope && contains(scope, el));
    }
  } else if ("label" in sel) els = byLabel(sel.label);
  else if ("role" in sel) els = byRole(sel.role, sel.name);
  const shown = els.filter(isVisible);
  const hidden = els.filter((el) => !shown.includes(el));
  if ("text" in sel && sel.nth !== undefined) {
    // The n-th visible match in page order (byText's order), or none yet.
    const pick = shown[sel.nth - 1];
    return pick ? { els: [pick], visible: 1 } : { els: [], visible: 0, short: shown.length };
  }
  return { els: [...shown, ...hidden], visible: shown.length };
}
export const quote = (v: string) => `"${v.replace(/["\\]/g, "\\$&").replace(/\n/g, "\\a ")}"`;

/** Whether `query` (as `css` runs it) finds exactly `el` in el's document. */
export function uniqueFor(el: Element, query: string): boolean {
  try {
    const got = css(query, el.ownerDocument);
    return got.length === 1 && got[0] === el;
  } catch {
    return false;
  }
}

const ATTRS = [
  "data-testid",
  "data-test",
  "data-test-id",
  "data-qa",
  "data-cy",
  "name",
  "aria-label",
  "placeholder",
  "title",
  "alt",
  "for",
  "href",
  "value",
  "type",
];

/** A short CSS selector that matches exactly el: #id, a unique attribute, or a short path. */
export function cssFor(el: Element): string | null {
  const tag = el.tagName.toLowerCase();
  if (el.id && uniqueFor(el, `#${CSS.escape(el.id)}`)) return `#${CSS.escape(el.id)}`;
  for (const attr of ATTRS) {
    const v = el.getAttribute(attr);
    if (v === null || v.length > 120) continue;
    const q = `${tag}[${attr}=${quote(v)}]`;
    if (uniqueFor(el, q)) return q;
  }
  const name = el.getAttribute("name");
  const value = el.getAttribute("value");
  if (name !== null && value !== null && value.length <= 120) {
    const q = `${tag}[name=${quote(name)}][value=${quote(value)}]`;
    if (uniqueFor(el, q)) return q;
  }
  // A path of tag:nth-of-type steps, anchored at the nearest ancestor with a unique id if any.
  const steps: string[] = [];
  let cur: Element | null = el;
  while (cur) {
    const node: Element = cur;
    const parent = node.parentNode;
    let step = node.tagName.toLowerCase();
    if (parent) {
      const same = Array.from(parent.children).filter((c) => c.tagName === node.tagName);
      if (same.length > 1) step += `:nth-of-type(${same.indexOf(node) + 1})`;
    }
    steps.unshift(step);
    const up = node.parentElement;
    if (up?.id && uniqueFor(up, `#${CSS.escape(up.id)}`)) {
      const anchored = `#${CSS.escape(up.id)} > ${steps.join(" > ")}`;
      if (uniqueFor(el, anchored)) return anchored;
    }
    const q = steps.join(" > ");
    if (uniqueFor(el, q)) return q;
    cur = up;
  }
  return null;
}
