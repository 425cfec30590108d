// The page side of a bound write, as the server sends it: where the field's document is (the
// browser's realm origin, not a parent's URL), the secret's value checked against that origin, the
// value set in that very realm on that element (never keys to whatever has focus), the document
// armed to empty the field before the call answers (src/in-page/bound.ts), and the scripted-document
// rule (spec §1.17): no secret goes into a document a script of the agent's could reach.
import type { ActionServices } from "../actions/ports.ts";
import { badInput } from "../errors.ts";
import { remoteValue, SANDBOX } from "../grid/bidi.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef } from "../grid/page-call.ts";
import { callScript } from "../grid/page-call.ts";
import { markScriptedDoc, scriptedDoc } from "../in-page/standalone.ts";
import { hostMatches } from "../kit/hosts.ts";
import { keyNames, type Secret } from "./catalogue.ts";
import type { Place } from "./places.ts";
import { currentCode } from "./totp.ts";

export interface SecretRef {
  name: string;
  key: string;
}

const CALL_MS = 10_000;
/** How long a document of the field's origin has to say whether a script reached it. */
const ASK_MS = 3_000;

/**
 * A secret readied for the field `el`, in one look: where the field's document is (asked of the
 * browser), the secret looked up once (the catalogue's, else the server's or the workspace's own),
 * its value for that place, refused when the field would cut it short (`max`, -1: no limit) or a
 * script of the agent's could reach it. The realm to fill in, the origin, and the value.
 */
export async function secretField(
  page: Page,
  field: { el: NodeRef; max: number; quoted: string },
  ref: SecretRef,
  call: {
    services: Pick<ActionServices, "secrets" | "personSecrets" | "config">;
    workspace: string;
  },
): Promise<{ realm: string; origin: string; value: string }> {
  const { services } = call;
  const { realm, origin, scripted } = await fieldRealm(page, field.el);
  const secret =
    services.secrets.get(ref.name) ?? (await services.personSecrets.get(call.workspace, ref.name));
  const value = await secretValue(secret, ref, origin);
  // Put in whole, it would be cut short unsaid: refused before anything goes in.
  if (field.max >= 0 && value.length > field.max)
    throw badInput(
      `${field.quoted} keeps at most ${field.max} characters (its maxlength), fewer than the secret's value: nothing was typed; name the field that takes the whole value`,
      "secret",
    );
  const shared = !!services.config.store.url;
  await refuseNearScript(page, { origin, scripted, context: field.el.context }, shared);
  return { realm, origin, value };
}

/** Where the field's document is, and the realm to act in: asked of the browser, failing closed. */
async function fieldRealm(
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
async function refuseNearScript(
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

const LISTED = "GET /secrets or the workspace://secrets resource lists the secrets and their keys";

/** Whether a document at `where` (a URL or an origin, as the browser gives it) is one of places. */
function allowedAt(places: readonly Place[], where: string): boolean {
  if (!URL.canParse(where)) return false;
  const url = new URL(where);
  const host = url.hostname.toLowerCase();
  if (!host) return false;
  return places.some(
    (p) =>
      hostMatches(p.host, host) &&
      (p.scheme === undefined || p.scheme === url.protocol) &&
      (p.port === undefined || p.port === url.port),
  );
}

function placeText(where: string): string {
  if (!URL.canParse(where)) return "on a page without a host";
  const url = new URL(where);
  return url.hostname
    ? `on ${url.hostname.toLowerCase()} (${url.protocol}//${url.host})`
    : "on a page without a host";
}

/**
 * The value to type for ref in the document at `where` (its realm's origin, as the browser tells
 * it); a 400 when the secret or key is unknown or the document is not on a place it may be typed
 * on (naming the place and the secret, never the value); the redactor masks every catalogue value of 8
 * characters or more where it leaves the server.
 * A one-time code key gives the code current now (the next one when fewer than 3 s are left), made
 * only after the place check passed.
 */
export function secretValue(
  /** The secret `ref` names, as looked up (the catalogue's, else a workspace's own). */
  secret: Secret | undefined,
  ref: SecretRef,
  where: string,
): string | Promise<string> {
  if (!secret) throw badInput(`there is no secret named ${ref.name}: ${LISTED}`, "secret.name");
  const code = secret.codes.get(ref.key);
  const value = secret.keys.get(ref.key);
  if (value === undefined && !code) {
    const keys = keyNames(secret).join(", ");
    throw badInput(`secret ${ref.name} has no key ${ref.key}: its keys are ${keys}`, "secret.key");
  }
  if (secret.allowedUrls.length > 0 && !allowedAt(secret.places, where)) {
    throw badInput(
      `secret ${ref.name} may not be typed ${placeText(where)}: it is allowed only on ${secret.allowedUrls.join(", ")}. Nothing was typed; go to one of those first`,
      "secret",
    );
  }
  // A fixed value stays synchronous; only a code is a promise (the caller awaits either).
  if (code) return currentCode(code);
  return value!;
}
