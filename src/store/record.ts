// The workspace record and its pure operations. The JSON field names are the Python build's, so a
// record it wrote reads here as is. Every operation returns a new record; nothing mutates.

import { z } from "zod";
import { isObject } from "../kit/json.ts";
import { BrowserSettingsShape, SiteDataHint } from "./shapes.ts";

export const HISTORY_CAP = 100;
export const DEFAULT_TTL_SECONDS = 86_400;
/**
 * The server's own record (the secrets an admin entered for every workspace): a key no workspace
 * name can take (kit/names.ts: a name starts with a letter or digit), and one that never expires.
 */
export const SERVER_RECORD = "@server";
const SERVER_TTL = 100 * 365 * 86_400;
/** Seconds `key`'s record lives after a write: the store's TTL, and the server's record for good. */
export const ttlOf = (key: string, ttl: number): number => (key === SERVER_RECORD ? SERVER_TTL : ttl);

// The record's shape, declared once: what a store reads is parsed here, once, and everything
// downstream trusts the types. A record another build (or an older one) wrote must always load:
// every field falls back (`.catch`) rather than failing the record.

const orElse = <T extends z.ZodType>(schema: T, fallback: z.output<T>) => schema.catch(() => fallback);

/** A landing; `at` is epoch seconds. */
export const VisitSchema = z.object({ origin: z.string().min(1), url: z.string().min(1), at: z.number() });
export type Visit = z.infer<typeof VisitSchema>;

const History = z.array(VisitSchema);

/** The landings; a malformed one is dropped alone and the rest stay (checked one by one only then). */
function visits(raw: unknown): Visit[] {
  const all = History.safeParse(raw);
  if (all.success) return all.data;
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((v) => {
    const got = VisitSchema.safeParse(v);
    return got.success ? [got.data] : [];
  });
}

/** Each field of open_session's settings, dropped alone when it is of another type. */
const settingsFields = Object.fromEntries(
  Object.entries(BrowserSettingsShape.shape).map(([k, s]) => [k, (s as z.ZodType).catch(undefined)]),
) as { [K in keyof typeof BrowserSettingsShape.shape]: z.ZodCatch<(typeof BrowserSettingsShape.shape)[K]> };

/**
 * What a browser was opened with, so a replacement opens the same way (open_session's `settings`).
 * A record another build wrote may carry more: kept as it is.
 */
export const BrowserSettingsSchema = z.looseObject(settingsFields);
export type BrowserSettings = z.infer<typeof BrowserSettingsSchema>;

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

/** Stored storage items: a value that is not text reads as its text (a page only ever stores text). */
const Items = orElse(
  z.record(
    z.string(),
    z.string().catch((c) => String(c.input)),
  ),
  {},
);

/**
 * The saved snapshot; `{}` means nothing saved. Each stored cookie is taken as it is: restore
 * reports one it cannot use (no name, an expiry that is not a time) and the views leave it out,
 * rather than it vanishing here.
 */
export const SiteDataSchema = z.looseObject({
  cookies: orElse(z.array(z.custom<StoredCookie>()), []).optional(),
  /** `idb`: the origin's IndexedDB databases (src/in-page/idb.ts), absent when none. */
  origins: orElse(
    z.record(
      z.string(),
      orElse(z.looseObject({ local: Items, idb: orElse(z.array(z.unknown()), []).optional() }), {
        local: {},
      }),
    ),
    {},
  ).optional(),
  session: orElse(
    z.looseObject({ origin: orElse(z.string(), "").optional(), items: Items.optional() }),
    {},
  ).optional(),
  saved_at: orElse(z.number().optional(), undefined),
});
export type SiteData = z.infer<typeof SiteDataSchema>;

/** A silent reopen's restore report, held until the first successful call from that browser. */
export type SiteDataReport = z.infer<typeof SiteDataHint>;

const ReopenedSchema = z.object({ browser: z.string(), report: SiteDataHint });
export type Reopened = z.infer<typeof ReopenedSchema>;

/** The held report, or `{}` (nothing held) for anything else. */
function reopenedOf(raw: unknown): Reopened | Record<string, never> {
  const got = ReopenedSchema.safeParse(raw);
  return got.success ? got.data : {};
}

/** Which tab, and which frame in it, the agent acts in: BiDi context ids of `browser`. */
const FocusSchema = z.object({
  browser: z.string().min(1),
  tab: z.string().min(1),
  frame: z.string().min(1).nullable().catch(null),
});
export type Focus = z.infer<typeof FocusSchema>;

/**
 * The question the workspace's agent waits on (ask_human), kept here so any server of a group shows
 * it and takes its answer: `since` and `until` are epoch seconds; `answer` is set by the person's
 * answer until the agent's call takes it (src/person/waits.ts). `rounds`: no call waits on it; the
 * agent's client asks again for its answer (MCP 2026-07-28's input_required rounds).
 */
const QuestionSchema = z.object({
  id: z.string().min(1),
  text: z.string(),
  since: z.number(),
  until: z.number(),
  answer: z.string().optional(),
  rounds: z.literal(true).optional().catch(undefined),
});
export type Question = z.infer<typeof QuestionSchema>;

/**
 * A person drives the workspace's browser (the admin's Take over): the agent's calls wait for Hand
 * back until `until` (epoch seconds), kept here so every server of a group sees it.
 */
const TakenOverSchema = z.object({ by: z.string(), since: z.number(), until: z.number() });
export type TakenOver = z.infer<typeof TakenOverSchema>;

/**
 * A secret a person entered for this workspace on the server's page (src/secrets/requests.ts):
 * where it may be typed and its values by key. At rest it is sealed with the site data's key
 * (seal.ts: `secrets_sealed`); only the bound write reads a value.
 */
const WorkspaceSecretSchema = z.object({
  allowed_urls: z.array(z.string()).min(1),
  keys: z.record(z.string(), z.string()),
  description: z.string().catch(""),
  at: z.number().catch(0),
});
export type WorkspaceSecret = z.infer<typeof WorkspaceSecretSchema>;
const WorkspaceSecretsSchema = z.record(z.string(), WorkspaceSecretSchema);

/**
 * A secret asked of a person: its page is /secrets/enter/<token> until `until` (epoch seconds).
 * `id` is the token's hash (what the agent's client is told); `csrf` the form's own token.
 */
const SecretRequestSchema = z.object({
  id: z.string().min(1),
  token: z.string().min(1),
  csrf: z.string().min(1),
  name: z.string().min(1),
  key: z.string().min(1),
  allowed_urls: z.array(z.string()).min(1),
  reason: z.string().catch(""),
  since: z.number(),
  until: z.number(),
});
export type SecretRequest = z.infer<typeof SecretRequestSchema>;

// Fields of no use to this build (the Python build's `url`) are not carried.
const RecordSchema = z.object({
  session_id: z.string().catch(""),
  opened_at: z.number().catch(0),
  settings: BrowserSettingsSchema.catch({}),
  history: z.unknown().optional().transform(visits),
  site_data: z.unknown().optional(),
  reopened: z.unknown().optional().transform(reopenedOf),
  /** Absent until a call of this build learnt where its browser is (the Python build has none). */
  focus: FocusSchema.optional().catch(undefined),
  /** Sealed site data that no key of this server opens: carried as it is, never overwritten (seal.ts). */
  unreadable: z.string().optional().catch(undefined),
  question: QuestionSchema.optional().catch(undefined),
  taken_over: TakenOverSchema.optional().catch(undefined),
  /** The workspace's own secrets, opened (seal.ts seals them at rest). */
  secrets: WorkspaceSecretsSchema.optional().catch(undefined),
  /** Sealed secrets that no key of this server opens: carried as they are, never overwritten. */
  secrets_unreadable: z.string().optional().catch(undefined),
  secret_requests: z.array(SecretRequestSchema).optional().catch(undefined),
});

export type WorkspaceRecord = Omit<z.infer<typeof RecordSchema>, "site_data"> & { site_data: SiteData };

export function emptyRecord(): WorkspaceRecord {
  return { session_id: "", opened_at: 0, settings: {}, history: [], site_data: {}, reopened: {} };
}

/**
 * The snapshot, parsed. When nothing needed a fallback it is the very object given: the store's
 * seal remembers a snapshot by identity, so one read and written back unchanged is not sealed again.
 */
function siteDataOf(raw: unknown): SiteData {
  // Each fallback taken words its issue through this parse's error map: counting there tells a
  // repaired snapshot from one taken as it is, with no count kept outside the call.
  let repairs = 0;
  const got = SiteDataSchema.safeParse(raw, {
    error: () => {
      repairs++;
      return undefined;
    },
  });
  if (!got.success) return {};
  return repairs === 0 ? (raw as SiteData) : got.data;
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
  const got = RecordSchema.safeParse(isObject(data) ? data : {});
  // Every field falls back, so this never fails; were it to, the record reads as empty, not as an error.
  if (!got.success) return emptyRecord();
  const {
    session_id,
    opened_at,
    settings,
    history,
    site_data,
    reopened,
    focus,
    unreadable,
    question,
    taken_over,
    secrets,
    secrets_unreadable,
    secret_requests,
  } = got.data;
  return {
    session_id,
    opened_at,
    settings,
    history,
    site_data: siteDataOf(site_data),
    reopened,
    ...(focus ? { focus } : {}),
    ...(unreadable !== undefined ? { unreadable } : {}),
    ...(question ? { question } : {}),
    ...(taken_over ? { taken_over } : {}),
    ...(secrets && Object.keys(secrets).length ? { secrets } : {}),
    ...(secrets_unreadable !== undefined ? { secrets_unreadable } : {}),
    ...(secret_requests?.length ? { secret_requests } : {}),
  };
}

/** The same record without a question. */
export function unasked(record: WorkspaceRecord): WorkspaceRecord {
  const { question: _gone, ...rest } = record;
  return rest;
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

export function toJson(record: WorkspaceRecord): string {
  return JSON.stringify(record);
}

/** The current page: the top of the history, or "". */
export function recordUrl(record: WorkspaceRecord): string {
  return record.history[0]?.url ?? "";
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
export function hostOfUrl(originOrUrl: string | null | undefined): string {
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
