// A save's read of the browser: the page's own two storages (in the sandbox), the whole cookie jar
// (BiDi sees httpOnly ones), and the localStorage of every other history origin, read in a few
// spare tabs side by side.

import type { Network } from "webdriver-bidi-protocol";
import { AppError, BIDI_DOWN, unavailable } from "../errors.ts";
import { BidiError } from "../grid/bidi.ts";
import { SPARE_PATH } from "../grid/net-rules.ts";
import type { IdbRead } from "../in-page/idb.ts";
import { isObject } from "../kit/json.ts";
import type { StoredCookie } from "../store/record.ts";
import { READ_LOCAL } from "./scripts.ts";
import type { Captured, Items } from "./snapshot.ts";
import type { SpareBidi } from "./spare-page.ts";
import { SparePool } from "./spare-pool.ts";

/** The page's top document: its origin ("" when opaque), both its storages, its url and title. */
export interface PageStorage {
  origin: string;
  local: unknown;
  session: unknown;
  idb?: unknown;
  url: string | null;
  title: string | null;
  /** The browser machine's cores (navigator.hardwareConcurrency); 0 or absent: unknown. */
  cores?: number;
}

export interface LoopOptions {
  /** The whole loop's budget (SPARE_BUDGET_MS unless told). */
  budgetMs?: number;
  /** Spare tabs side by side (site_data.tabs). */
  tabs?: number;
  /**
   * Whether origins that may share a site go in frames of one spare page (FRAMES_PER_PAGE): for
   * Chromium, whose frames' storage follows the same site rule as a SameSite cookie.
   */
  frames?: boolean;
  /**
   * Takes the spare tabs' closing instead of the capture waiting for it (the call's `later`): the
   * answer need not wait for a tab to go, only the next call does.
   */
  later?: (closing: Promise<void>) => void;
}

function idbRead(v: unknown): IdbRead {
  const o = isObject(v) ? v : {};
  return {
    dbs: Array.isArray(o.dbs) ? (o.dbs as IdbRead["dbs"]) : [],
    skipped: Array.isArray(o.skipped) ? (o.skipped as IdbRead["skipped"]) : [],
  };
}

function items(v: unknown): Items {
  if (!isObject(v)) return {};
  const out: Items = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === "string") out[k] = x;
  return out;
}

/** A BiDi cookie in the stored shape. */
export function storedCookie(c: Network.Cookie): StoredCookie {
  return {
    name: c.name,
    value: c.value.value,
    value_type: c.value.type,
    domain: c.domain,
    path: c.path,
    http_only: c.httpOnly,
    secure: c.secure,
    same_site: c.sameSite ?? null,
    expiry: typeof c.expiry === "number" ? c.expiry : null,
  };
}

/** Only a channel that did not answer is a 503; anything else stays what it was (a 500). */
export function channelDown(err: unknown): boolean {
  return err instanceof BidiError || (err instanceof AppError && err.kind === "unavailable");
}

/** Reads the jar; a channel that does not answer is BIDI_DOWN and nothing is saved. */
export async function readJar(bidi: SpareBidi): Promise<StoredCookie[]> {
  let jar: Network.Cookie[];
  try {
    jar = (await bidi.send("storage.getCookies", {})).cookies;
  } catch (err) {
    if (channelDown(err)) throw unavailable(BIDI_DOWN);
    throw err;
  }
  // A spare frame's site check leaves no cookie; one a dead page could leave is never kept.
  return jar.filter((c) => c.path !== SPARE_PATH).map(storedCookie);
}

/**
 * The page's storages, the jar (over the socket `connect` opens), and the localStorage of each other
 * http(s) origin in `origins` (newest first), read side by side in a pool of spare tabs. An origin
 * not read is named in `failed`; both keep the order of `origins`, however the visits finished.
 * `origins` may still be on its way (what the save must read): the page and the jar are read
 * meanwhile, so a save of the page alone is one round trip of commands sent together.
 */
export async function capture(
  connect: () => Promise<SpareBidi>,
  readPage: () => Promise<PageStorage>,
  origins: readonly string[] | Promise<readonly string[]>,
  opts: LoopOptions = {},
): Promise<Captured & { page: { url: string; title: string } | null }> {
  // While the page is read, the socket opens, the jar is read and the tabs for the history's other
  // sites (all but its newest, the page's as a rule) get ready.
  const socket = connect();
  const jar = socket.then(readJar);
  const listed = Promise.resolve(origins).then((list) => ({
    list,
    web: [...new Set(list)].filter((o) => /^https?:\/\//.test(o)),
  }));
  const pooled = Promise.all([socket, listed]).then(([b, { list, web }]) => {
    const pool = new SparePool(b, opts.tabs, undefined, opts.frames);
    const others = web.filter((o) => o !== list[0]);
    pool.warm(pool.visitsOf(others));
    return pool;
  });
  for (const p of [socket, jar, listed, pooled]) p.catch(() => undefined);
  try {
    const found = await readPage();
    const pageData: Record<string, unknown> = isObject(found) ? { ...found } : {};
    const here = typeof pageData.origin === "string" ? pageData.origin : "";
    await socket;
    const cookies = await jar;
    // The page's own origin is read in place.
    const wanted = (await listed).web.filter((o) => o !== here);
    const others: Record<string, Items> = {};
    const idb: Captured["idb"] = {};
    const idbSkipped: Captured["idbSkipped"] = [];
    const took = (origin: string, got: IdbRead) => {
      if (got.dbs.length) idb[origin] = got.dbs;
      for (const s of got.skipped) idbSkipped.push({ site: origin, ...s });
    };
    if (here) took(here, idbRead(pageData.idb));
    const failed: Captured["failed"] = [];
    if (wanted.length) {
      const jobs = wanted.map((origin) => ({ origin, fn: READ_LOCAL }));
      const pool = await pooled;
      if (typeof found.cores === "number" && found.cores > 0)
        pool.useCores(found.cores, pool.visitsOf(wanted));
      for (const o of await pool.run(jobs, opts)) {
        if (o.ok) {
          const v = isObject(o.value) ? o.value : {};
          others[o.origin] = items(v.local);
          took(o.origin, idbRead(v.idb));
        } else failed.push({ site: o.origin, reason: o.reason });
      }
    }
    const seen =
      typeof pageData.url === "string" && typeof pageData.title === "string"
        ? { url: pageData.url, title: pageData.title }
        : null;
    return {
      cookies,
      origin: here,
      local: items(pageData.local),
      session: items(pageData.session),
      others,
      idb,
      idbSkipped,
      failed,
      page: seen,
    };
  } finally {
    // Every tab the pool opened is closed, whatever happened (one still opening too).
    const closing = pooled.then(
      (p) => p.close(),
      () => undefined,
    );
    if (opts.later) opts.later(closing);
    else await closing;
  }
}
