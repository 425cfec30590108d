// A secret contained where it is. The page library marks where a typed value is (src/in-page/
// typed.ts): the field a bound write filled and the fields its page derived from it, a field a
// person typed into, and their document, a *typed document*; a document of an origin a value was
// typed on counts while one of its fields holds a run of one (a restored form). Here, the server's
// side: which documents of a browser are typed (asked of each, in parallel), what the agent may do
// there, and pictures painted with the typed fields' text left out, in the page itself, so no
// transform can put a cover in the wrong place. A browser where nothing was typed through this
// server pays nothing when no other server shares its store.
import { Key } from "selenium-webdriver";
import type { Combo } from "../actions/keys.ts";
import { type AppError, badInput } from "../errors.ts";
import type { BidiSocket } from "../grid/bidi.ts";
import { SANDBOX } from "../grid/bidi.ts";
import { declaration, NO_LIBRARY, type PageFn, packArgs, unpackResult } from "../grid/page-call.ts";
import type { Redactor } from "./redactor.ts";

const CALL_MS = 10_000;

/** Where a check looks: the browser's connection, which browser, and whether a peer server may have typed there. */
export interface TypedAt {
  socket: BidiSocket;
  browser: string;
  redactor: Redactor;
  /** This server is the only one that could have typed in the browser (no shared store). */
  alone: boolean;
  /** Only this tab's documents (else every tab's). */
  tab?: string;
}

/** Where a check looks for a call: the page's connection and tab, in the call's browser. */
export function typedAt(
  services: { redactor: Redactor; config: { store: { url: string | null } } },
  page: { held: { socket: BidiSocket }; where: { tab: string } },
  browser: string,
): TypedAt & { tab: string } {
  return {
    socket: page.held.socket,
    browser,
    redactor: services.redactor,
    alone: !services.config.store.url,
    tab: page.where.tab,
  };
}

/** Whether a check could find anything: not in a browser where nothing was typed, when this server alone types. */
export function mayHoldTyped(at: Pick<TypedAt, "browser" | "redactor" | "alone">): boolean {
  return !at.alone || at.redactor.typedIn(at.browser);
}

/** `fn(L, ...args)` in the sandbox of `context`, with the browser's digests; null when it would not answer. */
async function inSandbox<T>(
  at: Pick<TypedAt, "socket" | "browser" | "redactor">,
  context: string,
  fn: PageFn,
  timeoutMs = CALL_MS,
  args: unknown[] = [],
): Promise<T | null> {
  const send = (withLibrary: boolean) =>
    at.socket.send(
      "script.callFunction",
      {
        functionDeclaration: declaration(fn, withLibrary),
        target: { context, sandbox: SANDBOX },
        arguments: packArgs(args, false, at.redactor.typedJson(at.browser)),
        awaitPromise: true,
        resultOwnership: "none",
      },
      { timeoutMs },
    );
  try {
    let reply = await send(false);
    if (reply.type === "success" && reply.result.type === "string" && reply.result.value === NO_LIBRARY)
      reply = await send(true);
    if (reply.type !== "success") return null;
    return unpackResult(reply.result, context) as T;
  } catch {
    return null;
  }
}

interface Doc {
  context: string;
  url: string;
  /** The URL its origin comes from: its own, or for one that inherits (about:blank, srcdoc, javascript:) the nearest web page above it; "" for a tab that inherits from its opener. */
  from: string;
}
type Tree = { context: string; url: string; children?: Tree[] | null };

/** Every document under the tab (or of every tab), with the URL the browser gives it. */
async function docsOf(at: TypedAt, timeoutMs: number): Promise<Doc[]> {
  const tree = await at.socket.send("browsingContext.getTree", at.tab ? { root: at.tab } : {}, { timeoutMs });
  const out: Doc[] = [];
  const walk = (c: Tree, above: string) => {
    const from = /^https?:/i.test(c.url) ? c.url : above;
    out.push({ context: c.context, url: c.url, from });
    for (const child of c.children ?? []) walk(child, from);
  };
  for (const c of tree.contexts as Tree[]) walk(c, "");
  return out;
}

/**
 * Whether a document that did not answer could hold a typed value: one whose origin (its own, or
 * the page's it inherits from) a value was typed on; a tab that inherits from its opener, in a
 * browser where something was typed. With a peer server that may have typed (origins unknown
 * here): any that inherits, or any web page once a typed one answered.
 */
function couldHold(at: TypedAt, doc: Doc, someTyped: boolean): boolean {
  if (at.redactor.typedIn(at.browser)) {
    if (!doc.from) return true;
    return URL.canParse(doc.from) && at.redactor.typedOrigins(at.browser).includes(new URL(doc.from).origin);
  }
  return !at.alone && (doc.from !== doc.url || someTyped);
}

/** The typed documents of the browser (or tab), and those that would not say and could hold one. */
export async function typedDocs(
  at: TypedAt,
  timeoutMs = CALL_MS,
): Promise<{ typed: string[]; unknown: string[]; docs: Doc[] }> {
  if (!mayHoldTyped(at)) return { typed: [], unknown: [], docs: [] };
  let docs: Doc[];
  try {
    docs = await docsOf(at, timeoutMs);
  } catch {
    // The tree cannot be read: nothing is known, so everything may hold one.
    return { typed: [], unknown: at.tab ? [at.tab] : ["*"], docs: [] };
  }
  // Where only this server types, a document of an origin nothing was typed on cannot hold a value:
  // it is not asked (a frame that never answers, as a javascript: frame under CSP, costs nothing).
  const asked = (d: Doc) => !at.alone || couldHold(at, d, false);
  const said = await Promise.all(
    docs.map((d) => (asked(d) ? inSandbox<boolean>(at, d.context, (L) => L.typedDoc(), timeoutMs) : false)),
  );
  const typed = docs.filter((_, i) => said[i] === true).map((d) => d.context);
  const unknown = docs
    .filter((d, i) => said[i] === null && couldHold(at, d, typed.length > 0))
    .map((d) => d.context);
  return { typed, unknown, docs };
}

/** Whether a document of the browser (or tab) holds a typed value, or may and would not say. */
export async function holdsTyped(at: TypedAt, timeoutMs = CALL_MS): Promise<boolean> {
  const { typed, unknown } = await typedDocs(at, timeoutMs);
  return typed.length > 0 || unknown.length > 0;
}

/**
 * `capture()` with every typed field of the tab painted without its text, in the page itself, and
 * put back after; `covered` is false when a document that could hold one would not paint (the
 * caller then gives no picture of the tab).
 */
export async function withTypedCovered<T>(
  at: TypedAt & { tab: string },
  capture: () => Promise<T>,
  timeoutMs = CALL_MS,
): Promise<{ value: T; covered: boolean }> {
  if (!mayHoldTyped(at)) return { value: await capture(), covered: true };
  const docs = await docsOf(at, timeoutMs).catch(() => [] as Doc[]);
  const painted = await Promise.all(
    docs.map((d) =>
      !at.alone || couldHold(at, d, false)
        ? inSandbox<number>(at, d.context, (L) => L.coverTyped(true), timeoutMs)
        : 0,
    ),
  );
  const someTyped = painted.some((n) => (n ?? 0) > 0);
  const covered = docs.every((d, i) => painted[i] !== null || !couldHold(at, d, someTyped));
  try {
    return { value: await capture(), covered: covered && docs.length > 0 };
  } finally {
    await Promise.all(
      docs.map((d, i) =>
        painted[i] ? inSandbox<number>(at, d.context, (L) => L.coverTyped(false), timeoutMs) : null,
      ),
    );
  }
}

/** The 400 for a selector whose answer could depend on a typed value. */
export function typedSelector(what: string, field: string): AppError {
  return badInput(
    `this page holds a secret typed by write, and ${what} could tell what it is, so it is not run here: use a ref from read_page, an id, a name, a type, a role or a label`,
    field,
  );
}

// Keys that copy, cut or select a whole document (with Control or Meta), and those that submit.
const COPY_KEYS = new Set(["a", "c", "x", Key.INSERT]);
const SUBMIT_KEYS = new Set<string>([Key.ENTER, Key.RETURN, Key.TAB]);

/** Why keys may not be pressed where they would go (a typed field, or a copy in a typed document), or null. */
export function refusedKeys(combos: Combo[], where: { doc: boolean; field: boolean }): string | null {
  for (const c of combos) {
    const key = c.key.length === 1 ? c.key.toLowerCase() : c.key;
    const held = new Set(c.modifiers);
    if (where.field && !(SUBMIT_KEYS.has(key) && [...held].every((m) => m === Key.SHIFT)))
      return "the field holds a secret typed by write: only Enter or Tab may be pressed in it (other keys could edit or copy it); write it again to change it";
    if (where.doc && (held.has(Key.CONTROL) || held.has(Key.META)) && COPY_KEYS.has(key))
      return "this page holds a secret typed by write, and copying, cutting or selecting the whole page is not done here (the clipboard could carry it elsewhere)";
    if (where.doc && held.has(Key.SHIFT) && key === Key.DELETE)
      return "this page holds a secret typed by write, and cutting is not done here (the clipboard could carry it elsewhere)";
  }
  return null;
}

/**
 * Where keys pressed now would go, as the typed marks say: the element `el` (in `context`), else
 * the focused element of the focused document of the tab.
 */
export async function keysTarget(
  at: TypedAt & { tab: string },
  el: { context: string; sharedId: string } | null,
): Promise<{ doc: boolean; field: boolean }> {
  if (!mayHoldTyped(at)) return { doc: false, field: false };
  if (el) {
    const got = await typedOn(at, el);
    return got ?? { doc: true, field: true };
  }
  const docs = await docsOf(at, CALL_MS).catch(() => [] as Doc[]);
  const said = await Promise.all(
    docs.map((d) =>
      inSandbox<{ focus: boolean; doc: boolean; field: boolean }>(at, d.context, (L) => {
        const active = document.activeElement;
        const inner = active?.tagName === "IFRAME" || active?.tagName === "FRAME";
        return {
          focus: document.hasFocus() && !inner,
          doc: L.typedDoc(),
          field: !!active && L.typedEl(active),
        };
      }),
    ),
  );
  const focused = said.find((s) => s?.focus);
  if (focused) return { doc: focused.doc, field: focused.field };
  // No document says it has the focus: the keys go wherever the tab's own document sends them.
  const top = said[0];
  return top ? { doc: top.doc, field: top.field } : { doc: true, field: true };
}

/** Whether `el`'s document, and `el` itself, hold a typed value; null when the document would not answer. */
function typedOn(
  at: TypedAt,
  el: { context: string; sharedId: string },
): Promise<{ doc: boolean; field: boolean } | null> {
  return inSandbox(
    at,
    el.context,
    (L, target: Element) => ({ doc: L.typedDoc(), field: L.typedEl(target) }),
    CALL_MS,
    [el],
  );
}

/** A 400 when keys would edit or copy a typed value; nothing happens in a browser where nothing was typed. */
export async function checkKeys(
  at: TypedAt & { tab: string },
  el: { context: string; sharedId: string } | null,
  combos: Combo[],
): Promise<void> {
  if (!mayHoldTyped(at)) return;
  const why = refusedKeys(combos, await keysTarget(at, el));
  if (why) throw badInput(`${why}. Nothing was pressed`, "keys");
}

/** A 400 when a gesture would carry text out of a typed document (a drag, a selection). */
export async function checkCarry(
  at: TypedAt & { tab: string },
  el: { context: string; sharedId: string },
  what: string,
  field = "selector",
): Promise<void> {
  if (!mayHoldTyped(at)) return;
  const got = await typedOn(at, el);
  if (got === null || got.doc)
    throw badInput(
      `this page holds a secret typed by write, and ${what} could carry it elsewhere: it is not done here. Nothing was done`,
      field,
    );
}

/**
 * A person is about to type `text` (Take over): the focused field of the tab takes the typed mark,
 * its document's logs are withheld from now on, and the text is redacted like a secret (a long
 * enough one everywhere; any, as runs, in the document that holds it).
 */
export async function notePersonTyping(
  at: TypedAt & { tab: string },
  workspace: string,
  text: string,
  logs: { typedFrom(context: string): void },
): Promise<void> {
  at.redactor.notePersonal(text);
  const docs = await docsOf(at, CALL_MS).catch(() => [] as Doc[]);
  const marked = await Promise.all(
    docs.map((d) =>
      inSandbox<string | null>(at, d.context, (L) => {
        let a = document.activeElement;
        while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
        if (!document.hasFocus() || !a || a.tagName === "IFRAME" || a.tagName === "FRAME") return null;
        const field =
          a.tagName === "INPUT" || a.tagName === "TEXTAREA" || (a as HTMLElement).isContentEditable;
        if (!field) return null;
        L.markTyped(a);
        return String(self.origin);
      }),
    ),
  );
  docs.forEach((d, i) => {
    const origin = marked[i];
    if (typeof origin !== "string") return;
    at.redactor.noteTyped(at.browser, workspace, text, origin);
    logs.typedFrom(d.context);
  });
}
