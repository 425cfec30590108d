// Putting a snapshot into a fresh browser before its first page: every live cookie, then each
// origin's localStorage in one spare tab, then the saved sessionStorage in the main tab, which is
// left on about:blank for the landing. Best effort: nothing here throws or fails an open.
import { SITE_DATA_URI } from "../actions/define.ts";
import { messageOf } from "../errors.ts";
import type { PartialCookie, SameSite } from "../grid/bidi.ts";
import {
  closeTab,
  OUT_OF_TIME,
  openSpareTab,
  runJobs,
  type SpareBidi,
  type SpareTab,
  whyFailed,
} from "../grid/spare-tab.ts";
import { hostOf, type SiteData, type SiteDataReport, type StoredCookie } from "../store/record.ts";
import type { LoopOptions } from "./capture.ts";
import { fill } from "./scripts.ts";
import type { Items } from "./snapshot.ts";
import { rules } from "./views.ts";

export const NO_NAME = "a stored cookie with no name or domain";
export const BAD_EXPIRY = "a stored cookie whose expiry is not a time";
export const NOT_KEPT = "the browser did not keep it";

type Skip = NonNullable<SiteDataReport["skipped"]>[number];

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

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

// Chrome reports an unspecified SameSite as none and silently refuses none without secure.
function sameSite(c: StoredCookie): SameSite | undefined {
  if (typeof c.same_site !== "string") return undefined;
  if (c.same_site === "none" && !c.secure) return "lax";
  return c.same_site as SameSite;
}

function partial(c: StoredCookie): PartialCookie {
  const p: PartialCookie = {
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
function hiding(reason: string, values: unknown[]): string {
  let out = reason;
  for (const v of values) if (typeof v === "string" && v.length >= 3) out = out.split(v).join("[hidden]");
  return out;
}

const sameCookie = (a: { name: string; domain: string; path: string }, b: StoredCookie) =>
  a.name === b.name && a.domain === b.domain && a.path === (b.path || "/");

/** Sets every live, usable cookie; returns the ones the browser kept. */
async function restoreCookies(
  bidi: SpareBidi,
  stored: unknown,
  now: number,
  skipped: Skip[],
): Promise<StoredCookie[]> {
  const all = Array.isArray(stored) ? (stored as unknown[]) : [];
  const usable: StoredCookie[] = [];
  for (const c of all) {
    const bad = malformed(c);
    if (bad) skipped.push(bad);
    else usable.push(c as StoredCookie);
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
    else skipped.push({ cookie: c.name, domain: c.domain, reason: hiding(messageOf(o.reason), [c.value]) });
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
  const hosts = new Set(filled.map(hostOf).filter(Boolean));
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

// The stand-in page is never what an open with no url shows; the tab keeps its sessionStorage.
async function leaveMain(bidi: SpareBidi, tab: SpareTab): Promise<void> {
  await bidi
    .send("browsingContext.navigate", { context: tab.context, url: "about:blank", wait: "complete" })
    .catch(() => undefined);
  await tab.close();
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
  const session = isObject(data.session) ? data.session : {};
  const items = isObject(session.items) ? (session.items as Items) : {};
  const sessionOrigin =
    typeof session.origin === "string" && session.origin && Object.keys(items).length ? session.origin : null;
  const origins = isObject(data.origins) ? data.origins : {};
  const locals: Record<string, Items> = {};
  const jobs = Object.entries(origins)
    .filter(([, e]) => isObject(e) && isObject(e.local) && Object.keys(e.local).length > 0)
    .map(([origin, e]) => {
      locals[origin] = (e as { local: Items }).local;
      return { origin, expression: fill("localStorage", locals[origin]) };
    });
  // Both tabs get ready while the cookies go in. (Standing the main tab on its origin early too
  // gained nothing measurable on two cores: the two tabs' renderers only slowed each other.)
  const spare = jobs.length ? openSpareTab(bidi) : null;
  const inMain = sessionOrigin ? opts.main().then((context) => openSpareTab(bidi, { context })) : null;
  spare?.catch(() => undefined);
  inMain?.catch(() => undefined);
  let late = false;
  try {
    kept = await restoreCookies(bidi, data.cookies, now, skipped);
    if (spare) {
      for (const o of await runJobs(spare, jobs, opts)) {
        if (o.ok) filled.push(o.origin);
        else
          skipped.push({ site: o.origin, reason: hiding(o.reason, Object.values(locals[o.origin] ?? {})) });
        if (!o.ok && o.reason === OUT_OF_TIME) late = true;
      }
    }
  } catch (err) {
    skipped.push({ reason: messageOf(err) });
  }
  // The spare tab closes while the main tab takes its sessionStorage; after the budget ran out, a
  // write may still be under way there, so it closes first and nothing lands after sessionStorage.
  const closing = spare ? closeTab(spare) : null;
  if (late) await closing;
  if (sessionOrigin && inMain) {
    try {
      const tab = await inMain;
      try {
        await tab.run(sessionOrigin, fill("sessionStorage", items));
      } finally {
        await leaveMain(bidi, tab);
      }
      filled.push(sessionOrigin);
    } catch (err) {
      skipped.push({ site: sessionOrigin, reason: hiding(whyFailed(err), Object.values(items)) });
    }
  }
  await closing;
  return { restored: restoredHosts(filled, kept), skipped, uri: SITE_DATA_URI };
}
