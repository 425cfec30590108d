// Putting a value into a field from the sandbox realm, never as keystrokes to whatever has focus:
// the document holding the field is asked where it is (the browser's realm origin, not a parent's
// URL), and the value is set in that very realm, on that element, so a frame that steals the focus
// gets nothing.
import { badInput } from "../errors.ts";
import { SANDBOX } from "../grid/bidi.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef } from "../grid/page-call.ts";

const CALL_MS = 10_000;
const FRAME_MARK_MS = 10_000;

// Whether the element belongs to this realm's own document; its origin as the document knows it.
// "scripted" when agent script may have reached it since it loaded (a copier may wait there).
const WHERE = `function (el) {
  if (!el || !el.isConnected || el.ownerDocument !== document) return "";
  return (globalThis.__sfScripted === true ? "scripted " : "") + String(self.origin);
}`;

// Sets the value on the element itself: the native setter of this realm (the page cannot patch
// it), then input and change; a rich editor takes an insert at a selection inside it.
// With a secret, the fields whose values the page changes in the next few moments are its derived
// fields (a one-time code spread over six boxes): marked as typed too.
const FILL = `function (el, value, clear, secret) {
  if (!el || !el.isConnected || el.ownerDocument !== document) return "gone";
  if (secret) {
    const marks = globalThis.__sfTypedEls || (globalThis.__sfTypedEls = new Set());
    marks.add(el);
    const FIELDS = "input, textarea, [contenteditable]";
    const read = (f) => (f.isContentEditable ? f.textContent : f.value);
    const before = new Map(Array.from(document.querySelectorAll(FIELDS), (f) => [f, read(f)]));
    const look = () => {
      for (const f of document.querySelectorAll(FIELDS)) {
        const v = read(f);
        if (before.has(f) ? before.get(f) !== v : v) marks.add(f);
      }
    };
    queueMicrotask(look);
    for (const ms of [0, 50, 300, 1000]) setTimeout(look, ms);
  }
  try { el.focus({ preventScroll: true }); } catch (e) {}
  if (el.isContentEditable) {
    const range = document.createRange();
    range.selectNodeContents(el);
    if (!clear) range.collapse(false);
    const sel = document.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    if (!sel.anchorNode || !el.contains(sel.anchorNode)) return "focus";
    if (value === "") document.execCommand("delete");
    else if (!document.execCommand("insertText", false, value)) {
      range.deleteContents();
      range.insertNode(document.createTextNode(value));
      el.dispatchEvent(new InputEvent("input", { bubbles: true, composed: true, inputType: "insertText" }));
    }
    return "ok";
  }
  const proto = el.tagName === "TEXTAREA" ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  const set = Object.getOwnPropertyDescriptor(proto, "value").set;
  let next = clear ? value : el.value + value;
  if (el.maxLength >= 0) next = next.slice(0, el.maxLength);
  set.call(el, next);
  if (el.value !== next) return "format";
  el.dispatchEvent(new InputEvent("input", { bubbles: true, composed: true, inputType: "insertText" }));
  el.dispatchEvent(new Event("change", { bubbles: true }));
  return "ok";
}`;

/** Where the field's document is, and the realm to act in: asked of the browser, failing closed. */
export async function fieldRealm(
  page: Page,
  el: NodeRef,
): Promise<{ realm: string; origin: string; scripted: boolean }> {
  const socket = page.held.socket;
  const gone = () =>
    badInput(
      "the field's document is gone or would not answer, so nothing was typed: read_page and try again",
      "selector",
    );
  const reply = await socket
    .send(
      "script.callFunction",
      {
        functionDeclaration: WHERE,
        target: { context: el.context, sandbox: SANDBOX },
        arguments: [{ sharedId: el.sharedId }],
        awaitPromise: false,
        resultOwnership: "none",
      },
      { timeoutMs: CALL_MS },
    )
    .catch(() => null);
  if (reply?.type !== "success" || typeof reply.result.value !== "string" || !reply.result.value)
    throw gone();
  const said = reply.result.value as string;
  const { realms } = await socket
    .send("script.getRealms", { context: el.context }, { timeoutMs: CALL_MS })
    .catch(() => ({ realms: [] }));
  const realm = realms.find((r) => r.realm === reply.realm);
  if (!realm) throw gone();
  // The browser's word and the document's own must agree (an opaque origin reads "null" in both).
  const origin = realm.origin === said.replace(/^scripted /, "") ? realm.origin : "null";
  return { realm: reply.realm, origin, scripted: said.startsWith("scripted ") };
}

/** A secret is not typed on a document agent script reached since it loaded (it may have armed a copier). */
export const SCRIPTED =
  "a script (execute_script or assert's script) ran while this document was open, and it could copy what is typed: a secret is not typed here. Load the page again (navigate), then write";

type Tree = { context: string; children?: unknown[] | null };

/** What went wrong putting the value in; "ok" when it is in. */
export type FillOutcome = "ok" | "gone" | "focus" | "format";

/** Sets value into el from the sandbox realm `realm` (the one fieldRealm checked). */
export async function fillIn(
  page: Page,
  realm: string,
  el: NodeRef,
  value: string,
  clear: boolean,
  secret: boolean,
): Promise<FillOutcome> {
  const reply = await page.held.socket
    .send(
      "script.callFunction",
      {
        functionDeclaration: FILL,
        target: { realm },
        arguments: [
          { sharedId: el.sharedId },
          { type: "string", value },
          { type: "boolean", value: clear },
          { type: "boolean", value: secret },
        ],
        awaitPromise: false,
        resultOwnership: "none",
      },
      { timeoutMs: CALL_MS },
    )
    .catch(() => null);
  const got = reply?.type === "success" ? reply.result.value : "gone";
  return got === "ok" || got === "focus" || got === "format" ? got : "gone";
}

/**
 * Marks every document of the browser a secret could be typed on (`typable`, given the URL its
 * origin comes from: its own, or for one that inherits, the web page above it) as one agent script
 * may have reached: a bound write is refused on it until it is replaced. A tab's own document that
 * cannot take the mark says so (false). A frame's mark is sent and not waited for: one that never
 * answers the sandbox (a `javascript:` frame under `script-src 'none'`) cannot take a bound write
 * either (fieldRealm asks that same sandbox, after the mark in the same queue).
 */
export async function markScripted(page: Page, typable: (url: string) => boolean): Promise<boolean> {
  const socket = page.held.socket;
  try {
    const tree = await socket.send("browsingContext.getTree", {}, { timeoutMs: CALL_MS });
    const mark = (context: string, timeoutMs: number) =>
      socket.send(
        "script.callFunction",
        {
          functionDeclaration: "() => { globalThis.__sfScripted = true; return true; }",
          target: { context, sandbox: SANDBOX },
          awaitPromise: false,
          resultOwnership: "none",
        },
        { timeoutMs },
      );
    const tops: Promise<boolean>[] = [];
    const walk = (c: Tree & { url: string }, above: string, top: boolean) => {
      const from = /^https?:/i.test(c.url) ? c.url : above;
      if (!from || typable(from)) {
        if (top)
          tops.push(
            mark(c.context, CALL_MS)
              .then((r) => r.type === "success" && r.result.value === true)
              .catch(() => false),
          );
        else mark(c.context, FRAME_MARK_MS).catch(() => undefined);
      }
      for (const child of (c.children ?? []) as (Tree & { url: string })[]) walk(child, from, false);
    };
    for (const c of tree.contexts) walk(c, "", true);
    return (await Promise.all(tops)).every(Boolean);
  } catch {
    return false;
  }
}

/**
 * Marks the field's document as holding a typed secret (scripts are refused while any document
 * does); the mark lives in the sandbox, where the page cannot clear it. Fails closed: no mark, no typing.
 */
export async function markTyped(page: Page, realm: string): Promise<void> {
  const reply = await page.held.socket
    .send(
      "script.callFunction",
      {
        functionDeclaration: "() => { globalThis.__sfTyped = true; return true; }",
        target: { realm },
        awaitPromise: false,
        resultOwnership: "none",
      },
      { timeoutMs: CALL_MS },
    )
    .catch(() => null);
  if (reply?.type !== "success" || reply.result.value !== true)
    throw badInput(
      "the field's document would not take the server's mark, so nothing was typed: read_page and try again",
      "selector",
    );
}
