// Page side: the hints the page's own world recorded (page-world.ts), as the sandbox keeps them: per
// document, an expando only the sandbox sees, filled by takeHints (standalone.ts) as the server
// relays each report. A hint may make an element appear in the outline (a click target, a drop
// target, a closed shadow root's content); it never decides anything else.

export interface DocHints {
  /** Elements the page gave a click-like listener (click, mousedown, pointerdown, …). */
  click: WeakSet<Element>;
  /** Elements the page gave a drop or dragover listener. */
  drop: WeakSet<Element>;
  /** Closed shadow roots, by their host. */
  roots: WeakMap<Element, ShadowRoot>;
}

export const HINTS_KEY = "__sfHints";

// Each document's hints, looked up once a call: an expando on a document goes through its named
// properties (document[name] finds elements), slow for a lookup made for every element walked.
let known = new Map<Document, DocHints | undefined>();

/** Forgets what one call looked up; every call starts with it (takeHints may have added some since). */
export function forgetHints(): void {
  known = new Map();
}

function hintsOf(doc: Document): DocHints | undefined {
  if (known.has(doc)) return known.get(doc);
  const got = (doc as unknown as Record<string, DocHints | undefined>)[HINTS_KEY];
  known.set(doc, got);
  return got;
}

/** Whether the page gave `el` a click-like listener. */
export function listened(el: Element): boolean {
  return hintsOf(el.ownerDocument)?.click.has(el) === true;
}

/** Whether the page gave `el` a drop or dragover listener. */
export function dropHinted(el: Element): boolean {
  return hintsOf(el.ownerDocument)?.drop.has(el) === true;
}

/** The element's shadow root: an open one, else a closed one the hints reached. */
export function rootOf(el: Element): ShadowRoot | null {
  return el.shadowRoot ?? hintsOf(el.ownerDocument)?.roots.get(el) ?? null;
}
