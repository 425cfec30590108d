// Page side: text, visibility and walking the DOM (shadow roots included). Runs in the server's
// sandbox realm, where the page's own globals cannot reach.

import { rootOf } from "./hinted.ts";

export const norm = (s: string | null | undefined): string => (s ?? "").replace(/\s+/g, " ").trim();
export const low = (s: string | null | undefined): string => norm(s).toLowerCase();
export const cut = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export const BUTTON_INPUTS = ["button", "submit", "reset", "image"];
export const SKIP_TEXT = new Set([
  "SCRIPT",
  "STYLE",
  "NOSCRIPT",
  "TEMPLATE",
  "HEAD",
  "TITLE",
  "META",
  "LINK",
]);

/** The window's viewport in CSS pixels, as "WxH". */
export function viewportSize(): string {
  return `${innerWidth}x${innerHeight}`;
}

export function isVisible(el: Element): boolean {
  if (!el.isConnected) return false;
  const tag = el.tagName;
  if (tag === "OPTION" || tag === "OPTGROUP") {
    const select = el.closest("select");
    return select ? isVisible(select) : false;
  }
  const style = (el.ownerDocument.defaultView ?? window).getComputedStyle(el);
  if (style.display === "contents") return Array.from(el.children).some(isVisible);
  if (style.visibility !== "visible") return false;
  const withCheck = el as Element & { checkVisibility?: () => boolean };
  if (withCheck.checkVisibility && !withCheck.checkVisibility()) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}

/** Every element under root, shadow roots included (their content right after the host). */
export function allElements(root: Document | ShadowRoot | Element): Element[] {
  const out: Element[] = [];
  for (const el of Array.from(root.querySelectorAll("*"))) {
    out.push(el);
    const shadow = rootOf(el);
    if (shadow) for (const inner of allElements(shadow)) out.push(inner);
  }
  return out;
}

// Remembered for one call only (the library lives on in the sandbox between calls).
let rootsSeen = new Map<Document | ShadowRoot, ShadowRoot[]>();

/** Forgets what one call learnt of the page; every call starts with it. */
export function fresh(): void {
  rootsSeen = new Map();
}

/** Shadow roots under root (open ones, and the closed ones the hints reached), nested ones included. */
export function shadowRoots(root: Document | ShadowRoot): ShadowRoot[] {
  const known = rootsSeen.get(root);
  if (known) return known;
  const out: ShadowRoot[] = [];
  rootsSeen.set(root, out);
  for (const el of Array.from(root.querySelectorAll("*"))) {
    const shadow = rootOf(el);
    if (shadow) out.push(shadow, ...shadowRoots(shadow));
  }
  return out;
}

/** CSS over the document; when the document has no match, over its open shadow roots. */
export function css(query: string, doc: Document = document): Element[] {
  const direct = Array.from(doc.querySelectorAll(query));
  if (direct.length) return direct;
  const out: Element[] = [];
  for (const root of shadowRoots(doc))
    for (const el of Array.from(root.querySelectorAll(query))) out.push(el);
  return out;
}

export function xpath(query: string): Element[] {
  const snap = document.evaluate(query, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
  const out: Element[] = [];
  for (let i = 0; i < snap.snapshotLength; i++) {
    const node = snap.snapshotItem(i);
    const el = node && node.nodeType === 1 ? (node as Element) : (node?.parentElement ?? null);
    if (el && !out.includes(el)) out.push(el);
  }
  return out;
}

/** The text an element shows (a button input's value; hidden elements read as their textContent). */
export function textOf(el: Element): string {
  if (el.tagName === "INPUT") {
    const input = el as HTMLInputElement;
    if (BUTTON_INPUTS.includes(input.type))
      return norm(input.value || (input.type === "submit" ? "Submit" : ""));
    return "";
  }
  // biome-ignore lint/performance/useDomNodeTextContent: the text as shown is what a selector by text means
  const shown = (el as HTMLElement).innerText;
  return norm(typeof shown === "string" ? shown : el.textContent);
}

/** Keeps only matches with no matching descendant (the element that holds the text itself). */
export function deepest(matches: Element[]): Element[] {
  const set = new Set(matches);
  const covered = new Set<Element>();
  for (const m of matches) {
    let p: Element | null = m.parentElement ?? ((m.getRootNode() as ShadowRoot).host || null);
    while (p) {
      if (set.has(p)) {
        if (covered.has(p)) break;
        covered.add(p);
      }
      p = p.parentElement ?? ((p.getRootNode() as ShadowRoot).host || null);
    }
  }
  return matches.filter((m) => !covered.has(m));
}

const PRE = /^(pre|break-spaces)/;
const isPre = (el: Element) =>
  PRE.test((el.ownerDocument.defaultView ?? window).getComputedStyle(el).whiteSpace);
/** Lines with their spaces collapsed, empty ones dropped. */
const collapsed = (t: string) =>
  t
    .split("\n")
    .map((line) => line.replace(/[ \t\u00a0]+/g, " ").trim())
    .filter(Boolean)
    .join("\n");
/** Pre-formatted text as it is shown: indentation and blank lines kept, trailing spaces and the blank ends not. */
const kept = (t: string) =>
  t
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/^\n+|\n+$/g, "");

/**
 * The text an element shows, line by line (what extract reads): spaces collapsed and empty lines
 * dropped, but pre-formatted text (a <pre>, white-space: pre…) kept with its indentation and blank lines.
 */
export function shownText(el: Element): string {
  // biome-ignore lint/performance/useDomNodeTextContent: the text as shown, line breaks kept
  const text = (el as HTMLElement).innerText ?? el.textContent ?? "";
  if (isPre(el)) return kept(text);
  const blocks = Array.from(el.querySelectorAll("pre,code,textarea,[style*=pre],[class*=code]"))
    .filter(isPre)
    .filter((b, _, all) => !all.some((o) => o !== b && o.contains(b)));
  const out: string[] = [];
  let at = 0;
  for (const b of blocks) {
    // biome-ignore lint/performance/useDomNodeTextContent: as above
    const inner = (b as HTMLElement).innerText ?? "";
    const i = inner ? text.indexOf(inner, at) : -1;
    if (i < 0) continue;
    out.push(collapsed(text.slice(at, i)), kept(inner));
    at = i + inner.length;
  }
  out.push(collapsed(text.slice(at)));
  return out.filter(Boolean).join("\n");
}
