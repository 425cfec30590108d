// The workspace record and its pure operations. The JSON field names are the Python build's, so a
// record it wrote reads here as is. Every operation returns a new record; nothing mutates.

import type { z } from "zod";
import { isObject } from "../json.ts";
import type { BrowserSettingsShape } from "../workspaces/shapes.ts";

export const HISTORY_CAP = 100;
export const DEFAULT_TTL_SECONDS = 86_400;

export interface Visit {
  origin: string;
  url: string;
  /** Epoch seconds. */
  at: number;
}

/**
 * What a browser was opened with, so a replacement opens the same way (open_session's `settings`).
 * A record another build wrote may carry more: kept as it is.
 */
export type BrowserSettings = z.infer<typeof BrowserSettingsShape> & { [key: string]: unknown };

export interface StoredCookie {
  name: string;
  value: string;
  value_type: "string" | "base64";
  domain: string;
  path: string;
  http_only: boolean;
  secure: boolean;
  same_site: string | null;
  expiry: number | null;
}

/** The saved snapshot. `{}` means nothing saved; read every field defensively. */
export interface SiteData {
  cookies?: StoredCookie[];
  /** `idb`: the origin's IndexedDB databases (src/site-data/idb.ts), absent when none. */
  origins?: Record<string, { local: Record<string, string>; idb?: unknown[] }>;
  session?: { origin?: string; items?: Record<string, string> };
  saved_at?: number;
}

/** A silent reopen's restore report, held until the first successful call from that browser. */
export interface SiteDataReport {
  restored?: string[];
  skipped?: Array<{ reason: string; site?: string; cookie?: string; domain?: string }>;
  forgotten?: number;
  uri?: string;
}

export interface Reopened {
  browser: string;
  report: SiteDataReport;
}

/** Which tab, and which frame in it, the agent acts in: BiDi context ids of `browser`. */
export interface Focus {
  browser: string;
  tab: string;
  frame: string | null;
}

export interface WorkspaceRecord {
  session_id: string;
  opened_at: number;
  settings: BrowserSettings;
  history: Visit[];
  site_data: SiteData;
  reopened: Reopened | Record<string, never>;
  /** Absent until a call of this build learnt where its browser is (the Python build has none). */
  focus?: Focus;
  /** Sealed site data that no key of this server opens: carried as it is, never overwritten (seal.ts). */
  unreadable?: string;
}

export function emptyRecord(): WorkspaceRecord {
  return { session_id: "", opened_at: 0, settings: {}, history: [], site_data: {}, reopened: {} };
}

/** Reads a record from its JSON (text or parsed). Malformed parts fall back; nothing throws. */
export function fromJson(raw: unknown): WorkspaceRecord {
  let data: unknown = raw;
  if (typeof raw === "string") {
    try {
      data = JSON.parse(raw);
    } catch {
      data = {};
    }
  }
  const r = isObject(data) ? data : {};
  const reopened: WorkspaceRecord["reopened"] =
    isObject(r.reopened) && typeof r.reopened.browser === "string" && isObject(r.reopened.report)
      ? { browser: r.reopened.browser, report: r.reopened.report as SiteDataReport }
      : {};
  return {
    session_id: typeof r.session_id === "string" && r.session_id ? r.session_id : "",
    opened_at: typeof r.opened_at === "number" && Number.isFinite(r.opened_at) ? r.opened_at : 0,
    settings: isObject(r.settings) ? (r.settings as BrowserSettings) : {},
    history: visits(r.history),
    site_data: isObject(r.site_data) ? (r.site_data as SiteData) : {},
    reopened,
    ...focusOf(r.focus),
    ...(typeof r.unreadable === "string" ? { unreadable: r.unreadable } : {}),
  };
}

function focusOf(raw: unknown): { focus?: Focus } {
  if (!isObject(raw)) return {};
  const { browser, tab, frame } = raw;
  if (typeof browser !== "string" || !browser || typeof tab !== "string" || !tab) return {};
  return { focus: { browser, tab, frame: typeof frame === "string" && frame ? frame : null } };
}

/** Where the agent acts in `browser`, when the record knows it. */
export function focusFor(record: WorkspaceRecord | null, browser: string): Omit<Focus, "browser"> | null {
  const f = record?.focus;
  return f && f.browser === browser ? { tab: f.tab, frame: f.frame } : null;
}

/** The same record, focused on `where` of `browser`. */
export function focused(
  record: WorkspaceRecord,
  browser: string,
  where: Omit<Focus, "browser">,
): WorkspaceRecord {
  return { ...record, focus: { browser, tab: where.tab, frame: where.frame } };
}

function visits(raw: unknown): Visit[] {
  if (!Array.isArray(raw)) return [];
  const out: Visit[] = [];
  for (const e of raw) {
    if (!isObject(e)) continue;
    const { origin, url, at } = e;
    if (typeof origin !== "string" || !origin || typeof url !== "string" || !url) continue;
    if (typeof at !== "number" || !Number.isFinite(at)) continue;
    out.push({ origin, url, at });
  }
  return out;
}

export function toJson(record: WorkspaceRecord): string {
  return JSON.stringify(record);
}

/** The current page: the top of the history, or "". */
export function recordUrl(record: WorkspaceRecord): string {
  return record.history[0]?.url ?? "";
}

export function attached(record: WorkspaceRecord): boolean {
  return record.session_id !== "";
}

/**
 * The origin of an http(s) URL as `location.origin` spells it (lowercase, default port dropped,
 * IPv6 brackets kept), or "" for anything else: only web pages enter the history.
 */
export function originOf(url: string | null | undefined): string {
  if (!url) return "";
  try {
    const u = new URL(url);
    if (u.protocol !== "http:" && u.protocol !== "https:") return "";
    return u.origin;
  } catch {
    return "";
  }
}

/** The lowercase host of an origin or URL, or "". */
export function hostOf(originOrUrl: string | null | undefined): string {
  if (!originOrUrl) return "";
  try {
    return new URL(originOrUrl).hostname.toLowerCase();
  } catch {
    return "";
  }
}

/** Origin + path: what an entry below the top keeps (queries and fragments carry codes and tokens). */
export function stripped(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return url;
  }
}

/**
 * Records landings: each URL with an http(s) origin goes to the top, replacing that origin's
 * entry; then entries below the top older than the TTL expire, the list is capped, and every entry
 * below the top is kept as origin + path. Expiry runs even when nothing was recorded.
 */
export function at(
  record: WorkspaceRecord,
  urls: ReadonlyArray<string | null | undefined>,
  now: number,
  ttl: number = DEFAULT_TTL_SECONDS,
): WorkspaceRecord {
  let history = record.history;
  for (const url of urls) {
    const origin = originOf(url);
    if (!origin || !url) continue;
    history = [{ origin, url, at: now }, ...history.filter((v) => v.origin !== origin)];
  }
  const fresh = history.filter((v, i) => i === 0 || v.at >= now - ttl).slice(0, HISTORY_CAP);
  const out = fresh.map((v, i) => (i === 0 ? v : { ...v, url: stripped(v.url) }));
  return { ...record, history: out };
}

/** The same record with its reopen report handed over. */
export function delivered(record: WorkspaceRecord): WorkspaceRecord {
  return { ...record, reopened: {} };
}

export function withSiteData(record: WorkspaceRecord, data: SiteData | null | undefined): WorkspaceRecord {
  return { ...record, site_data: data ? { ...data } : {} };
}

/**
 * Whether `current` is the snapshot `seen`, or what is left of it after a Forget: the same save,
 * nothing added. A save that landed since (even within the same second) adds or changes something.
 */
export function siteDataWithin(current: SiteData, seen: SiteData): boolean {
  if (current.saved_at !== seen.saved_at) return false;
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const seenCookies = new Set((seen.cookies ?? []).map((c) => JSON.stringify(c)));
  if (!(current.cookies ?? []).every((c) => seenCookies.has(JSON.stringify(c)))) return false;
  const seenOrigins = seen.origins ?? {};
  if (!Object.entries(current.origins ?? {}).every(([o, e]) => o in seenOrigins && same(e, seenOrigins[o])))
    return false;
  return Object.keys(current.session?.items ?? {}).length === 0 || same(current.session, seen.session);
}

/** Clear keeps the top entry: it is the current page, where a reopen goes. */
export function historyCleared(record: WorkspaceRecord): WorkspaceRecord {
  return { ...record, history: record.history.slice(0, 1) };
}

/** No browser any more; history, settings and site data stay. */
export function detached(record: WorkspaceRecord): WorkspaceRecord {
  const { focus: _gone, ...rest } = record;
  return { ...rest, session_id: "", reopened: {} };
}

export function reshaped(
  record: WorkspaceRecord,
  size: { width?: number; height?: number },
): WorkspaceRecord {
  const settings = { ...record.settings };
  if (typeof size.width === "number") settings.width = size.width;
  if (typeof size.height === "number") settings.height = size.height;
  return { ...record, settings };
}

/** The reopen report a touch from `browser` may collect, if the record holds one for it. */
export function reportFor(record: WorkspaceRecord, browser: string): SiteDataReport | null {
  const r = record.reopened;
  return "browser" in r && r.browser === browser && r.browser === record.session_id ? r.report : null;
}
