// Page side: refs (e12), the short names read_page gives elements, and the paging state of its
// reads. Both live per document, as an expando on the Document that only the server's sandbox
// sees (one sandbox world spans a tab's frames, so the top document's read can give a same-origin
// frame's elements refs that resolve once the agent is in that frame). A new document starts with
// none, and pagehide forgets them: a ref or a cursor never outlives the document it was given in.

export interface Registry {
  /** Names this document's reads in cursors; a new one after every pagehide. */
  token: string;
  /** What this document's refs start with (e, f, g …): each document of the browser has its own. */
  letter: string;
  next: number;
  els: Map<string, WeakRef<Element>>;
  refs: WeakMap<Element, string>;
  reads: Map<number, unknown>;
  nextRead: number;
}

const KEY = "__sfRefs";
const KEEP_READS = 4;
const LETTERS = "efghijklmnopqrstuvwxyzabcd";

function token(): string {
  return Math.random().toString(36).slice(2, 8).padEnd(6, "0");
}

// Documents count up across the browser (the server hands in how many have had refs so far), so a
// ref from the page before a navigation, e12, never names an element of the next page, f12.
let docs = 0;

export function refFloor(floor: number): void {
  if (floor > docs) docs = floor;
}
export function refHigh(): number {
  return docs;
}

function letterFor(n: number): string {
  const one = LETTERS[n % 26] as string;
  return n < 26 ? one : `${LETTERS[Math.floor(n / 26) % 26]}${one}`;
}

// Each document's registry, looked up once a call (an expando on a document goes through its named
// properties: slow for a lookup made for every element described).
let looked = new Map<Document, Registry>();

/** Forgets what one call looked up; every call starts with it. */
export function forgetRegistries(): void {
  looked = new Map();
}

export function registry(doc: Document): Registry {
  const hit = looked.get(doc);
  if (hit?.letter) return hit;
  const holder = doc as unknown as Record<string, Registry | undefined>;
  const known = holder[KEY];
  if (known) {
    if (!known.letter) known.letter = letterFor(docs++);
    looked.set(doc, known);
    return known;
  }
  const reg: Registry = {
    token: token(),
    letter: letterFor(docs++),
    next: 0,
    els: new Map(),
    refs: new WeakMap(),
    reads: new Map(),
    nextRead: 1,
  };
  holder[KEY] = reg;
  looked.set(doc, reg);
  // A document kept in the back/forward cache comes back without its refs and cursors.
  doc.defaultView?.addEventListener("pagehide", (e) => {
    if (!e.isTrusted) return;
    reg.els.clear();
    reg.refs = new WeakMap();
    reg.reads.clear();
    reg.token = token();
    reg.letter = "";
    reg.next = 0;
  });
  return reg;
}

/** The element's ref, the same one every read of its document gives it. */
export function refFor(el: Element): string {
  const reg = registry(el.ownerDocument);
  const known = reg.refs.get(el);
  if (known && reg.els.get(known)?.deref() === el) return known;
  const ref = `${reg.letter}${++reg.next}`;
  reg.refs.set(el, ref);
  reg.els.set(ref, new WeakRef(el));
  return ref;
}

function lookup(doc: Document, ref: string): Element | "gone" | null {
  const reg = (doc as unknown as Record<string, Registry | undefined>)[KEY];
  const weak = reg?.els.get(ref);
  if (!weak) return null;
  const el = weak.deref();
  return el?.isConnected && el.ownerDocument === doc ? el : "gone";
}

function frameDocs(doc: Document): Document[] {
  const out: Document[] = [];
  for (const f of Array.from(doc.querySelectorAll("iframe,frame"))) {
    try {
      const d = (f as HTMLIFrameElement).contentDocument;
      if (d) out.push(d, ...frameDocs(d));
    } catch {
      // a cross-origin frame: its refs are its own
    }
  }
  return out;
}

export const REF_AGAIN = "call read_page again and use the refs it gives";

/** The element a ref names in this document, or why it names none (a sentence for the 400). */
export function resolveRef(ref: string): { el: Element } | { why: string; gone?: true } {
  const q = JSON.stringify(ref);
  const got = lookup(document, ref);
  if (got === "gone")
    return {
      why: `ref ${q} is gone: the page removed or replaced that element since read_page; ${REF_AGAIN}`,
      gone: true,
    };
  if (got) return { el: got };
  if (frameDocs(document).some((d) => lookup(d, ref)))
    return {
      why: `ref ${q} is inside a frame: enter it with switch (frame) first, as read_page's frame says`,
    };
  let up: Window | null = window.parent !== window ? window.parent : null;
  while (up) {
    try {
      if (lookup(up.document, ref))
        return { why: `ref ${q} is outside this frame: leave it with switch (frame: null) first` };
    } catch {
      break;
    }
    up = up.parent !== up ? up.parent : null;
  }
  return {
    why: `ref ${q} is not on this page: refs last only until the page navigates or reloads; ${REF_AGAIN}`,
  };
}

/** Keeps a read's state for its cursors (the last few reads of the document). */
export function keepRead(doc: Document, state: unknown): number {
  const reg = registry(doc);
  const id = reg.nextRead++;
  reg.reads.set(id, state);
  for (const old of reg.reads.keys()) if (reg.reads.size > KEEP_READS) reg.reads.delete(old);
  return id;
}

export function readOf(doc: Document, tok: string, id: number): unknown {
  const reg = registry(doc);
  return reg.token === tok ? reg.reads.get(id) : undefined;
}
