// Putting a value into a field from the sandbox realm, never as keystrokes to whatever has focus:
// the document holding the field is asked where it is (the browser's realm origin, not a parent's
// URL), and the value is set in that very realm, on that element (src/in-page/fill.ts), so a frame
// that steals the focus gets nothing.
import { badInput } from "../errors.ts";
import { SANDBOX } from "../grid/bidi.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef } from "../grid/page-call.ts";
import type { FillOutcome } from "../in-page/fill.ts";
import type { PageLib } from "../in-page/index.ts";
import { markScriptedDoc } from "../in-page/standalone.ts";

const CALL_MS = 10_000;
const FRAME_MARK_MS = 10_000;
const SCRIPTED_MARK = String(markScriptedDoc);

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
  const reply = await page
    .callWithRealm<string>(el.context, (L: PageLib, f: Element) => L.whereIs(f), el)
    .catch(() => null);
  if (!reply?.value) throw gone();
  const said = reply.value;
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

/** Sets value into el from the sandbox realm `realm` (the one fieldRealm checked). */
export async function fillIn(
  page: Page,
  realm: string,
  el: NodeRef,
  value: string,
  clear: boolean,
  secret: boolean,
): Promise<FillOutcome> {
  const got = await page
    .callRealm<FillOutcome>(
      realm,
      el.context,
      (L: PageLib, f: HTMLInputElement, v: string, c: boolean, s: boolean) => L.fillField(f, v, c, s),
      el,
      value,
      clear,
      secret,
    )
    .catch(() => "gone" as const);
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
          functionDeclaration: SCRIPTED_MARK,
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
export async function markTyped(page: Page, realm: string, context: string): Promise<void> {
  const marked = await page
    .callRealm<boolean>(realm, context, (L: PageLib) => L.markTyped(null))
    .catch(() => false);
  if (marked !== true)
    throw badInput(
      "the field's document would not take the server's mark, so nothing was typed: read_page and try again",
      "selector",
    );
}
