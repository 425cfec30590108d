// A save is a snapshot: it replaces the last one whole (the jar, the localStorage of every origin
// read, the page's sessionStorage). Pure; runs inside the settle write.
import { badInput } from "../errors.ts";
import type { IdbDatabase } from "../in-page/idb.ts";
import type { SiteData, StoredCookie, Visit } from "../store/record.ts";
import { storedIdb } from "./idb.ts";

export const MAX_BYTES = 1_000_000;
export const LEFT_OUT = `left out: the snapshot would pass ${MAX_BYTES} bytes`;
export const JAR_OVER = `the cookie jar is over ${MAX_BYTES} bytes; nothing was saved`;

export type Items = Record<string, string>;

/** What a save read from the browser. Private: it never leaves the server. */
export interface Captured {
  cookies: StoredCookie[];
  /** The page's origin, or "" when it has none. */
  origin: string;
  local: Items;
  session: Items;
  /** localStorage of the other history origins, read in the spare tab. */
  others: Record<string, Items>;
  /** Each read origin's IndexedDB databases (the page's included); absent when it has none. */
  idb?: Record<string, IdbDatabase[]>;
  /** Records that could not be carried (a Blob), by origin, database and store. */
  idbSkipped?: Array<{ site: string; database: string; store: string; reason: string }>;
  failed: Array<{ site: string; reason: string }>;
  /** Origins not read because nothing loaded them since the last save: each keeps its storage. */
  carried?: string[];
}

export interface SaveReceipt {
  cookies: number;
  /** The origins whose storage this save read and kept, in snapshot order. */
  sites: string[];
  skipped: Array<{ site?: string; database?: string; store?: string; reason: string }>;
}

type Entry = { local: Items; idb?: IdbDatabase[] };

/** The snapshot's size: UTF-8 bytes of its compact JSON. */
export function sizeOf(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}

/** What a snapshot holds for `origin` (its localStorage and IndexedDB). */
function storedEntry(data: SiteData | null | undefined, origin: string): Entry | null {
  const origins = data?.origins;
  const entry = origins && Object.hasOwn(origins, origin) ? origins[origin] : undefined;
  return entry ? { local: entry.local, idb: storedIdb(entry) } : null;
}

const filled = (e: Entry | undefined): e is Entry =>
  !!e && (Object.keys(e.local).length > 0 || (e.idb?.length ?? 0) > 0);

/** The JAR_OVER check alone, for a save to refuse before it writes anything. */
export function jarFits(cookies: StoredCookie[], now: number): boolean {
  return sizeOf({ cookies, origins: {}, session: {}, saved_at: now }) <= MAX_BYTES;
}

/**
 * One save, replacing the last. `origins` keeps the localStorage of every origin read that has
 * any, newest first (the page, then the history). An origin that could not be read, or a history
 * origin the save did not try (it landed while the save ran), keeps its storage from `previous`.
 * Over MAX_BYTES the origins visited longest ago go first, the page's own storage last, then its
 * sessionStorage; a jar that alone passes it is a 400 and nothing is saved.
 */
export function snapshot(
  previous: SiteData | null | undefined,
  captured: Captured,
  history: readonly Visit[],
  now: number,
): { data: SiteData; receipt: SaveReceipt } {
  const here = captured.origin || "";
  const read: Record<string, Entry> = {};
  for (const [o, local] of Object.entries(captured.others)) read[o] = { local };
  if (here) read[here] = { local: captured.local ?? {} };
  for (const [o, dbs] of Object.entries(captured.idb ?? {})) if (read[o] && dbs.length) read[o].idb = dbs;
  const skipped: SaveReceipt["skipped"] = captured.failed.map((f) => ({ ...f }));
  for (const s of captured.idbSkipped ?? []) skipped.push({ ...s });
  const tried = new Set([...Object.keys(read), ...captured.failed.map((f) => f.site)]);
  const kept: Record<string, Entry> = {};
  for (const f of captured.failed) {
    const last = storedEntry(previous, f.site);
    if (last) kept[f.site] = last;
  }
  for (const o of [...history.map((v) => v.origin), ...(captured.carried ?? [])]) {
    if (tried.has(o)) continue;
    const last = storedEntry(previous, o);
    if (last) kept[o] = last;
  }
  const order = new Set(
    [here, ...history.map((v) => v.origin), ...Object.keys(read), ...Object.keys(kept)].filter(Boolean),
  );
  const origins: Record<string, Entry> = {};
  for (const o of order) {
    const e = filled(read[o]) ? read[o] : kept[o];
    if (!filled(e)) continue;
    origins[o] = e.idb?.length ? { local: { ...e.local }, idb: e.idb } : { local: { ...e.local } };
  }
  const items = { ...(captured.session ?? {}) };
  const session: SiteData["session"] = here ? { origin: here, items } : {};
  const cookies = [...captured.cookies];

  // Sizes are measured once: the jar and time, each origin's entry, the session.
  const core = sizeOf({ cookies, origins: {}, session: {}, saved_at: now });
  if (core > MAX_BYTES) throw badInput(JAR_OVER);
  const names = Object.keys(origins);
  const entry = names.map((o) => sizeOf(o) + 1 + sizeOf(origins[o]));
  const sessionBytes = sizeOf(session) - 2;
  let count = names.length;
  let originBytes = entry.reduce((a, b) => a + b, 0) + Math.max(0, count - 1);
  let keepSession = true;
  while (core + originBytes + (keepSession ? sessionBytes : 0) > MAX_BYTES) {
    if (count > 0) {
      count--;
      originBytes -= (entry[count] as number) + (count > 0 ? 1 : 0);
      skipped.push({ site: names[count] as string, reason: LEFT_OUT });
    } else {
      keepSession = false;
      skipped.push({ site: here, reason: LEFT_OUT });
    }
  }
  const left: Record<string, Entry> = {};
  for (const o of names.slice(0, count)) left[o] = origins[o] as Entry;
  const data: SiteData = { cookies, origins: left, session: keepSession ? session : {}, saved_at: now };
  const sites = Object.keys(left).filter((o) => o in read);
  if (keepSession && Object.keys(items).length && !sites.includes(here)) sites.unshift(here);
  return { data, receipt: { cookies: cookies.length, sites, skipped } };
}

/** Whether a snapshot holds anything a restore could put back. */
export function restorable(data: SiteData | null | undefined): boolean {
  if (!data) return false;
  const cookies = (data.cookies?.length ?? 0) > 0;
  const origins = Object.keys(data.origins ?? {}).length > 0;
  const session = Object.keys(data.session?.items ?? {}).length > 0;
  return cookies || origins || session;
}
