// Page side: where a typed secret is in this document. A bound write (or a person's typing during
// Take over) marks the field it filled, the fields the page derived from it, and the document, here
// in the sandbox where the page cannot reach the marks. A document of an origin a value was typed on
// also holds one while a field's value holds a run of a typed value (Chrome's form restoration puts
// it into a new, unmarked document): runs are compared as salted digests the server hands every call
// made in a browser where something was typed (src/secrets/redactor.ts runDigest, the same function).
// On a typed document the agent's selectors may not depend on a value, its reads redact runs, and its
// fields are painted without their text for a picture.

/** The length of a run compared (src/secrets/redactor.ts RUN). */
const RUN = 4;

interface Digests {
  salt: number;
  runs: Set<number>;
  /** Digests of the longer runs a restored field is recognised by (a word of a password is not one). */
  longs: Set<number>;
  long: number;
  /** Values shorter than `long`, whole. */
  wholes: Set<number>;
  origins: string[];
}
interface TypedGlobals {
  /** Agent script may have reached this document since it loaded (a copier may wait here). */
  __sfScripted?: boolean;
  __sfTypedEls?: Set<Element>;
  /** Fields the agent wrote plain text into: never typed by what they hold. */
  __sfPlain?: WeakSet<Element>;
  __sfD?: Digests;
}
const G = globalThis as TypedGlobals;

/** What the server hands every call in a browser where something was typed (src/secrets/redactor.ts digests). */
export interface TypedDigests {
  salt: number;
  /** Every RUN-long run of every value typed. */
  runs: number[];
  /** Every `long`-long run: what a restored field is recognised by. */
  longs: number[];
  long: number;
  /** Values shorter than `long`, whole. */
  wholes: number[];
  /** The origins a value was typed on. */
  origins: string[];
}

/** The browser's digests, as the server sent them with this call. */
export function typedWith(json: string): void {
  const d = JSON.parse(json) as TypedDigests;
  G.__sfD = {
    salt: d.salt,
    runs: new Set(d.runs),
    longs: new Set(d.longs),
    long: d.long,
    wholes: new Set(d.wholes),
    origins: d.origins,
  };
}

export function runDigest(run: string, salt: number): number {
  let h1 = 0xdeadbeef ^ salt;
  let h2 = 0x41c6ce57 ^ salt;
  const s = run.toLowerCase();
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** The [start, end) stretches of text made of runs of a typed value (merged where they touch). */
function runSpans(text: string, set?: Set<number>, size = RUN): [number, number][] {
  const d = G.__sfD;
  const digests = set ?? d?.runs;
  if (!d || !digests || digests.size === 0 || text.length < size) return [];
  const spans: [number, number][] = [];
  for (let i = 0; i + size <= text.length; i++) {
    if (!digests.has(runDigest(text.slice(i, i + size), d.salt))) continue;
    const last = spans[spans.length - 1];
    if (last && last[1] >= i) last[1] = i + size;
    else spans.push([i, i + size]);
  }
  return spans;
}

/** Whether a field's text holds a typed value (or a long run of one): what a restored form shows. */
function holdsValue(text: string | null): boolean {
  const d = G.__sfD;
  if (!d || !text) return false;
  return d.wholes.has(runDigest(text.trim(), d.salt)) || runSpans(text, d.longs, d.long).length > 0;
}

/** Whether text from this document holds a run of a value typed in this browser, when the document is typed. */
export function hasRun(text: string | null | undefined): boolean {
  if (!G.__sfD || !text || !isTypedDoc()) return false;
  return runSpans(text).length > 0;
}

function isTypedDoc(): boolean {
  docMemo ??= typedDoc();
  return docMemo;
}

// Whether this document is typed, worked out once per call (forgetTyped starts each call).
let docMemo: boolean | null = null;

/** Forgets what one call worked out; every call starts with it. */
export function forgetTyped(): void {
  docMemo = null;
}

/** text from this document with every run of a typed value replaced by [hidden], when the document is typed. */
export function redactRuns(text: string): string {
  if (!G.__sfD || !text || !isTypedDoc()) return text;
  const spans = runSpans(text);
  if (!spans.length) return text;
  let out = "";
  let at = 0;
  for (const [s, e] of spans) {
    out += `${text.slice(at, s)}[hidden]`;
    at = e;
  }
  return out + text.slice(at);
}

const FIELD_TYPES = /^(hidden|checkbox|radio|button|submit|reset|image|file|range|color)$/i;

function heldText(el: Element): string | null {
  if (el.tagName === "TEXTAREA") return (el as HTMLTextAreaElement).value;
  if (el.tagName === "INPUT" && !FIELD_TYPES.test((el as HTMLInputElement).type || ""))
    return (el as HTMLInputElement).value;
  if ((el as HTMLElement).isContentEditable) return el.textContent;
  return null;
}

function fieldsOf(doc: Document): Element[] {
  return Array.from(doc.querySelectorAll("input, textarea, [contenteditable]"));
}

/** Whether this document is of an origin a value was typed on (its fields may hold a restored one). */
function ofTypedOrigin(): boolean {
  return !!G.__sfD?.origins.includes(String(self.origin));
}

/** Whether el holds a typed value: a field write or a person filled (or the page derived from one), or one holding a run of one. */
export function typedEl(el: Element): boolean {
  if (G.__sfTypedEls?.has(el)) return true;
  if (!G.__sfD || !ofTypedOrigin() || G.__sfPlain?.has(el)) return false;
  return holdsValue(heldText(el));
}

/** Every field of this document holding a typed value. */
export function typedFields(): Element[] {
  const out = new Set<Element>();
  for (const el of G.__sfTypedEls ?? []) if (el.isConnected) out.add(el);
  if (G.__sfD && ofTypedOrigin()) for (const el of fieldsOf(document)) if (typedEl(el)) out.add(el);
  return [...out];
}

/**
 * Whether this document holds a typed secret: a field a write (or a person) filled still in it, or
 * a field holding a run of a typed value. Only while it holds one: a single-page app that replaced
 * its sign-in form by what comes after is an ordinary page again (its text unmasked, scripts run).
 */
export function typedDoc(): boolean {
  for (const el of G.__sfTypedEls ?? []) if (el.isConnected) return true;
  if (!G.__sfD || !ofTypedOrigin()) return false;
  return fieldsOf(document).some(typedEl);
}

/**
 * Takes the mark for a value about to be typed (`el` null: the document says it can keep marks, or
 * the write is not made), and marks `el` as holding one (a write's field, or a person's).
 */
export function markTyped(el: Element | null): boolean {
  if (!G.__sfTypedEls) G.__sfTypedEls = new Set();
  if (el) G.__sfTypedEls.add(el);
  return true;
}

/** Whether el is of this realm's own document: its origin as the document knows it ("scripted " first when marked so), else "". */
export function whereIs(el: Element | null): string {
  if (!el?.isConnected || el.ownerDocument !== document) return "";
  return (G.__sfScripted === true ? "scripted " : "") + String(self.origin);
}

/** The agent wrote plain text into el: it holds no typed value, and what it holds never counts as one. */
export function wrotePlain(el: Element): boolean {
  if (!G.__sfPlain) G.__sfPlain = new WeakSet();
  G.__sfPlain.add(el);
  return G.__sfTypedEls?.delete(el) === true;
}

// Attributes a selector may match by value on a typed document: what names a field, never what it holds.
const SAFE_ATTRS = new Set([
  "id",
  "name",
  "type",
  "role",
  "class",
  "for",
  "data-testid",
  "data-test",
  "data-test-id",
  "data-qa",
  "data-cy",
]);
const ATTR_WITH_VALUE = /\[\s*([^\]\s~|^$*=]+)\s*[~|^$*]?=/g;

/**
 * Why a selector may not run on this typed document (its answer could depend on a typed value), or
 * null. Refs, ids, names, types, roles, labels and an attribute's presence stay usable.
 */
export function selectorRisk(sel: Record<string, unknown>): string | null {
  if (!typedDoc()) return null;
  if ("xpath" in sel) return "an xpath";
  if ("css" in sel) {
    const css = String(sel.css);
    if (/:has\s*\(/i.test(css)) return "a css selector with :has()";
    for (const m of css.matchAll(ATTR_WITH_VALUE)) {
      const name = (m[1] ?? "").toLowerCase();
      if (!SAFE_ATTRS.has(name)) return `a css selector matching the value of [${name}]`;
    }
  }
  return null;
}

// Discs for the glyphs (a PDF keeps even transparent text as text), and no ink for the discs.
const COVER = [
  ["-webkit-text-security", "disc"],
  ["color", "transparent"],
  ["-webkit-text-fill-color", "transparent"],
  ["text-shadow", "none"],
  ["caret-color", "transparent"],
] as const;
type Saved = [HTMLElement, [string, string, string][]];
let covered: Saved[] = [];

/**
 * Paints every typed field (and every element whose own text holds a run of a typed value) without
 * its text, for a picture; `false` puts back what was there. Answers once the change is painted.
 */
export async function coverTyped(on: boolean): Promise<number> {
  if (!on) {
    for (const [el, props] of covered)
      for (const [p, v, prio] of props) {
        if (v) el.style.setProperty(p, v, prio);
        else el.style.removeProperty(p);
      }
    const n = covered.length;
    covered = [];
    return n;
  }
  const targets = new Set<HTMLElement>(typedFields() as HTMLElement[]);
  if (G.__sfD?.runs.size) {
    const walker = document.createTreeWalker(document.body ?? document.documentElement, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode())
      if (n.parentElement && hasRun((n as Text).data)) targets.add(n.parentElement);
  }
  for (const el of targets) {
    if (!el.style) continue;
    covered.push([
      el,
      COVER.map(([p]) => [p, el.style.getPropertyValue(p), el.style.getPropertyPriority(p)]),
    ]);
    for (const [p, v] of COVER) el.style.setProperty(p, v, "important");
  }
  // Two frames: the style is applied and painted (a hidden tab paints no frame: a short wait instead).
  await Promise.race([
    new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
    new Promise((r) => setTimeout(r, 100)),
  ]);
  return targets.size;
}
