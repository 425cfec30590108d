// Putting a snapshot into a fresh browser before its first page: every live cookie, then each
// origin's localStorage from its marked page in the main tab, lent as the spare tab (more spare
// tabs beside it where the browser has the cores), and the saved sessionStorage through a one-shot
// preload script that fills the main tab's on its way to that site. Best effort: nothing here throws
// or fails an open.

import type { BrowsingContext, Network, Storage } from "webdriver-bidi-protocol";
import { SITE_DATA_URI } from "../actions/fields.ts";
import { messageOf } from "../errors.ts";
import { SANDBOX } from "../grid/bidi.ts";
import { addPreload } from "../grid/page-call.ts";
import { isObject } from "../kit/json.ts";
import {
  hostOfUrl,
  originOf,
  type SiteData,
  type SiteDataReport,
  type StoredCookie,
} from "../store/record.ts";
import { rules } from "./by-host.ts";
import type { LoopOptions } from "./capture.ts";
import { storedIdb } from "./idb.ts";
import { sessionPreload, WRITE_LOCAL } from "./scripts.ts";
import type { Items } from "./snapshot.ts";
import type { SpareBidi } from "./spare-page.ts";
import { browserCores, pagesOf, SparePool } from "./spare-pool.ts";

export const NO_NAME = "a stored cookie with no name or domain";
export const BAD_EXPIRY = "a stored cookie whose expiry is not a time";
export const NOT_KEPT = "the browser did not keep it";

type Skip = NonNullable<SiteDataReport["skipped"]>[number];

// Only the string fields go into a skip item: the published shape declares them strings.
function malformed(c: unknown): Skip | null {
  const o = isObject(c) ? c : {};
  const named =
    typeof o.name === "string" && o.name !== "" && typeof o.domain === "string" && o.domain !== "";
  const timed =
    o.expiry === null ||
    o.expiry === undefined ||
    (typeof o.expiry === "number" && Number.isFinite(o.expiry));
  if (named && timed) return null;
  const skip: Skip = { reason: named ? BAD_EXPIRY : NO_NAME };
  if (typeof o.name === "string" && o.name) skip.cookie = o.name;
  if (typeof o.domain === "string" && o.domain) skip.domain = o.domain;
  return skip;
}

/** Drops expired cookies; session cookies (no expiry) stay: their session is ours. */
export function liveCookies(cookies: StoredCookie[], now: number): StoredCookie[] {
  return cookies.filter((c) => typeof c.expiry !== "number" || c.expiry > now);
}

// Chrome reports an unspecified Network.SameSite as none and silently refuses none without secure.
function sameSite(c: StoredCookie): Network.SameSite | undefined {
  if (typeof c.same_site !== "string") return undefined;
  if (c.same_site === "none" && !c.secure) return "lax";
  return c.same_site as Network.SameSite;
}

function partial(c: StoredCookie): Storage.PartialCookie {
  const p: Storage.PartialCookie = {
    name: c.name,
    value: { type: c.value_type === "base64" ? "base64" : "string", value: String(c.value ?? "") },
    domain: c.domain,
    path: typeof c.path === "string" && c.path ? c.path : "/",
    httpOnly: c.http_only === true,
    secure: c.secure === true,
  };
  const s = sameSite(c);
  if (s) p.sameSite = s;
  if (typeof c.expiry === "number") p.expiry = Math.floor(c.expiry);
  return p;
}

// A browser's error may echo what it was given: a reason never carries a value.
function redactValues(reason: string, values: unknown[]): string {
  let out = reason;
  for (const v of values) if (typeof v === "string" && v.length >= 3) out = out.split(v).join("[hidden]");
  return out;
}

const sameCookie = (a: { name: string; domain: string; path: string }, b: StoredCookie) =>
  a.name === b.name && a.domain === b.domain && a.path === (b.path || "/");

/** Sets every live, usable cookie; returns the ones the browser kept. */
async function restoreCookies(
  bidi: SpareBidi,
  stored: readonly StoredCookie[] | undefined,
  now: number,
  skipped: Skip[],
): Promise<StoredCookie[]> {
  const usable: StoredCookie[] = [];
  for (const c of stored ?? []) {
    const bad = malformed(c);
    if (bad) skipped.push(bad);
    else usable.push(c);
  }
  const live = liveCookies(usable, now);
  // Sent together (the browser takes them in order); each refusal is its own skip.
  const outcomes = await Promise.allSettled(
    live.map((c) => bidi.send("storage.setCookie", { cookie: partial(c) })),
  );
  const sent: StoredCookie[] = [];
  outcomes.forEach((o, i) => {
    const c = live[i] as StoredCookie;
    if (o.status === "fulfilled") sent.push(c);
    else
      skipped.push({
        cookie: c.name,
        domain: c.domain,
        reason: redactValues(messageOf(o.reason), [c.value]),
      });
  });
  // A browser can refuse a cookie without an error; only the jar says.
  let jar: Array<{ name: string; domain: string; path: string }>;
  try {
    jar = (await bidi.send("storage.getCookies", {})).cookies;
  } catch {
    return sent;
  }
  const kept = sent.filter((c) => jar.some((j) => sameCookie(j, c)));
  for (const c of sent)
    if (!kept.includes(c)) skipped.push({ cookie: c.name, domain: c.domain, reason: NOT_KEPT });
  return kept;
}

/** The hosts that came back: filled origins, plus cookie domains that reach none of them. */
function restoredHosts(filled: string[], kept: StoredCookie[]): string[] {
  const hosts = new Set(filled.map(hostOfUrl).filter(Boolean));
  const storageHosts = [...hosts];
  for (const c of kept) {
    if (storageHosts.some((h) => rules.covers(c.domain, h))) continue;
    const bare = c.domain.replace(/^\.+/, "").toLowerCase();
    if (bare) hosts.add(bare);
  }
  return [...hosts].sort();
}

export interface RestoreOptions extends LoopOptions {
  /** The main tab's context id (its window handle). */
  main: () => Promise<string>;
}

// The preload goes once the tab has a document of the site: the browser's navigation events say
// so (never the page). A sandbox preload's channel never reaches the client in Chromium 156 (a
// page-realm one does), so the events are the signal, and nothing runs in the page's world. Should
// the connection close first, the preload stays with the browser, and only ever fills an empty
// sessionStorage.
const ARRIVED = ["browsingContext.navigationCommitted", "browsingContext.load"] as const;

/**
 * Installs the one-shot preload that fills `context`'s sessionStorage for `origin` before that
 * site's first page runs, in the sandbox; it removes itself once the tab got there. A part that
 * fails undoes the rest, then raises.
 */
export async function preloadSession(
  bidi: SpareBidi,
  context: string,
  origin: string,
  items: Items,
): Promise<void> {
  let script: string | null = null;
  let subscription: string | null = null;
  let arrived = false;
  let gone = false;
  const offs: Array<() => void> = [];
  const remove = () => {
    if (gone) return;
    gone = true;
    for (const off of offs.splice(0)) off();
    const quietly = (p: Promise<unknown>) => p.catch(() => undefined);
    if (script) quietly(bidi.send("script.removePreloadScript", { script }));
    if (subscription) quietly(bidi.unsubscribe(subscription));
  };
  // In place before anything is asked, so no navigation can pass unseen.
  for (const event of ARRIVED) {
    offs.push(
      bidi.on(event, context, (p: BrowsingContext.NavigationInfo) => {
        if (originOf(p?.url ?? "") !== origin) return;
        arrived = true;
        if (script && subscription) remove();
      }),
    );
  }
  const [added, subscribed] = await Promise.allSettled([
    addPreload(bidi, {
      functionDeclaration: sessionPreload(origin, items),
      sandbox: SANDBOX,
      contexts: [context],
    }),
    bidi.subscribe([...ARRIVED], [context]),
  ]);
  if (added.status === "fulfilled") script = added.value.script;
  if (subscribed.status === "fulfilled") subscription = subscribed.value;
  if (added.status === "rejected" || subscribed.status === "rejected") {
    remove();
    throw added.status === "rejected" ? added.reason : (subscribed as PromiseRejectedResult).reason;
  }
  if (arrived) remove();
}

/** Restores `data` into a fresh browser; the report names what came back and what did not. */
export async function restore(
  bidi: SpareBidi,
  data: SiteData,
  now: number,
  opts: RestoreOptions,
): Promise<SiteDataReport> {
  const skipped: Skip[] = [];
  let kept: StoredCookie[] = [];
  const filled: string[] = [];
  const items = data.session?.items ?? {};
  const sessionOrigin = data.session?.origin && Object.keys(items).length ? data.session.origin : null;
  const locals: Record<string, Items> = {};
  const jobs = Object.entries(data.origins ?? {})
    .map(([origin, e]) => ({ origin, local: e.local, idb: storedIdb(e) }))
    .filter((e) => Object.keys(e.local).length > 0 || e.idb.length > 0)
    .map(({ origin, local, idb }) => {
      locals[origin] = local;
      return { origin, fn: WRITE_LOCAL, arg: JSON.stringify({ local, idb }) };
    });
  // The main tab's preload goes in while the cookies do. It acts at the site's first document in
  // the tab: the spare page the main tab visits for it, or else the first page.
  const inMain = sessionOrigin
    ? opts.main().then((context) => preloadSession(bidi, context, sessionOrigin, items))
    : null;
  inMain?.catch(() => undefined);
  // The main tab is lent as the spare tab (no page of its own yet, none left in its history). It
  // moves once the preload is in, so no visit passes it. With more than one page to visit it also
  // waits for the cores (asked of it before it moves, while the cookies go in): on a browser with the
  // cores for it, more tabs open beside it. One page (every site in frames of it) asks none.
  const pages = pagesOf(
    jobs.map((j) => j.origin),
    opts.frames ?? false,
  );
  const cores = pages > 1 ? opts.main().then((context) => browserCores(bidi, context)) : Promise.resolve(0);
  const lend = async () => ({ context: await opts.main(), after: Promise.allSettled([inMain, cores]) });
  const pool = jobs.length ? new SparePool(bidi, opts.tabs, lend, opts.frames) : null;
  pool?.warm(pages);
  if (pool && pages > 1) cores.then((n) => pool.useCores(n, pages)).catch(() => undefined);
  // The tab is on its way to the first origin while the cookies go in; nothing is written before.
  const cookies = restoreCookies(bidi, data.cookies, now, skipped);
  const writing = pool?.run(jobs, { ...opts, ready: cookies });
  try {
    kept = await cookies;
    if (writing) {
      for (const o of await writing) {
        if (o.ok) filled.push(o.origin);
        else
          skipped.push({
            site: o.origin,
            reason: redactValues(o.reason, Object.values(locals[o.origin] ?? {})),
          });
      }
    }
  } catch (err) {
    skipped.push({ reason: messageOf(err) });
  }
  // Every spare tab is closed before the first page, a write the budget cut off included.
  const closing = pool?.close();
  if (sessionOrigin && inMain) {
    try {
      await inMain;
      filled.push(sessionOrigin);
    } catch (err) {
      skipped.push({ site: sessionOrigin, reason: redactValues(messageOf(err), Object.values(items)) });
    }
  }
  await closing;
  return { restored: restoredHosts(filled, kept), skipped, uri: SITE_DATA_URI };
}
