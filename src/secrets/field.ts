// The page side of a bound write, as the server sends it: where the field's document is (the
// browser's realm origin, not a parent's URL), the value set in that very realm on that element
// (never keys to whatever has focus), the document armed to empty the field before the call answers
// (src/in-page/bound.ts), and the scripted-document rule (spec §1.17): no secret goes into a document
// a script of the agent's could reach.
import { badInput } from "../errors.ts";
import { remoteValue, SANDBOX } from "../grid/bidi.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef } from "../grid/page-call.ts";
import { callScript } from "../grid/page-call.ts";
import { markScriptedDoc, scriptedDoc } from "../in-page/standalone.ts";

const CALL_MS = 10_000;
/** How long a document of the field's origin has to say whether a script reached it. */
const ASK_MS = 3_000;

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
  // Both asked at once: one round trip.
  const [reply, { realms }] = await Promise.all([
    page.callWithRealm<string>(el.context, "whereIs", el).catch(() => null),
    socket
      .send("script.getRealms", { context: el.context }, { timeoutMs: CALL_MS })
      .catch(() => ({ realms: [] as { realm: string; origin: string }[] })),
  ]);
  if (!reply?.value) throw gone();
  const said = reply.value;
  const realm = realms.find((r) => r.realm === reply.realm);
  if (!realm) throw gone();
  // The browser's word and the document's own must agree (an opaque origin reads "null" in both).
  const origin = realm.origin === said.replace(/^scripted /, "") ? realm.origin : "null";
  return { realm: reply.realm, origin, scripted: said.startsWith("scripted ") };
}

const MARK = String(markScriptedDoc);
const ASK = String(scriptedDoc);

/**
 * The agent is about to run a script in the page's current context: its document and every one of
 * its origin alive now count as scripted until they navigate (the server's record), and each takes
 * the mark in its sandbox too (it survives the back/forward cache, and a server of the group that
 * did not run the script reads it). Sent, not waited for: the record is what decides.
 */
export async function noteScript(page: Page): Promise<void> {
  const reached = page.held.reached;
  let origin = reached.ran(page.context);
  if (origin === null) {
    reached.known((await page.send("browsingContext.getTree", {}, { timeoutMs: CALL_MS })).contexts);
    origin = reached.ran(page.context);
  }
  const contexts = origin && origin !== "null" ? reached.ofOrigin(origin) : [page.context];
  for (const context of contexts)
    callScript(
      page.held.socket,
      { functionDeclaration: MARK, target: { context, sandbox: SANDBOX }, awaitPromise: false },
      { timeoutMs: CALL_MS },
    ).catch(() => undefined);
}

/**
 * A 400 when a script of the agent's could reach a field of `origin`: the field's own document is
 * scripted, or a scripted document of that origin is alive in any tab or frame. `shared`: another
 * server may have run a script here (its marks are asked of every document of the origin).
 */
export async function refuseNearScript(
  page: Page,
  field: { origin: string; scripted: boolean; context: string },
  shared: boolean,
): Promise<void> {
  const here =
    "a script of yours (execute_script or assert's script) ran in this page, or in a page of the same site open beside it, and it could read what is typed: a secret is not typed here. Load the page again (navigate), then write";
  const reached = page.held.reached;
  const mine = reached.reachedOf(field.origin);
  const named = (url: string) =>
    badInput(
      `a script of yours (execute_script or assert's script) ran in ${url}, which is open in this browser and of the same site as the field: it could read what is typed, so a secret is not typed while it is open. Navigate that tab elsewhere or close it (switch), then write`,
      "secret",
    );
  // A scripted page of the site still open is named first: it is the one to load again or close.
  const near = mine.find((d) => d.context !== field.context);
  if (near) throw named(near.url);
  if (field.scripted || mine.length > 0) throw badInput(here, "secret");
  if (!shared && !reached.scriptedOrigin(field.origin)) return;
  // Marks the record may not hold (a group's other server, a page back from the cache): asked of
  // every document of the origin; one that would not say counts as scripted.
  const tree = await page.send("browsingContext.getTree", {}, { timeoutMs: CALL_MS });
  reached.known(tree.contexts);
  const urls = new Map<string, string>();
  const walk = (cs: typeof tree.contexts | null | undefined) => {
    for (const c of cs ?? []) {
      urls.set(c.context, c.url);
      walk(c.children);
    }
  };
  walk(tree.contexts);
  const asked = await Promise.all(
    reached.ofOrigin(field.origin).map(async (context) => {
      const got = await callScript(
        page.held.socket,
        { functionDeclaration: ASK, target: { context, sandbox: SANDBOX }, awaitPromise: false },
        { timeoutMs: ASK_MS },
      ).catch(() => null);
      const yes = got?.type !== "success" || remoteValue(got.result) !== false;
      return yes ? context : null;
    }),
  );
  const hit = asked.find((c) => c !== null);
  if (!hit) return;
  if (hit === field.context) throw badInput(here, "secret");
  throw named(urls.get(hit) ?? "another page");
}
