// The snapshot by host, as read models: the agent's listing and one site in full, the rows of the
// admin's Site data and History panes, Forget and the summary. A site is a host (cookies carry no
// scheme or port); storage stays per origin. One grouping of the jar serves every read: cookies are
// indexed by domain once.
import type { z } from "zod";
import { SITE_DATA_URI } from "../actions/fields.ts";
import type { IdbDatabase } from "../in-page/idb.ts";
import { isObject } from "../kit/json.ts";
import { hostOfUrl, type SiteData, type StoredCookie, type Visit } from "../store/record.ts";
import { idbDetail, storedIdb } from "./idb.ts";
import type { SiteDataShape, SiteList, SiteRowShape } from "./schemas.ts";

export const REDACTED_DOTS = "•••";
export const siteUri = (host: string) => `${SITE_DATA_URI}/${host}`;

type Items = Record<string, string>;

// The shapes the agent surface declares (schemas.ts), as types: each is declared once, there.
export type SiteDetail = z.infer<typeof SiteDataShape>;
export type CookieDetail = SiteDetail["cookies"][number];
export type Identity = SiteDetail["kept_shared"][number];
export type SiteRow = z.infer<typeof SiteRowShape>;
export type SiteListing = z.infer<typeof SiteList>;

// The cookie rules, called through this object so tests can count the work.
export const rules = {
  /** The cookie's domain reaches `host`: the host itself, or a parent's leading-dot domain. */
  covers(domain: string, host: string): boolean {
    const bare = domain.replace(/^\.+/, "");
    return host === bare || (domain.startsWith(".") && host.endsWith(domain));
  },
  /** The host's own cookie (host or .host): what Forget removes. */
  own(domain: string, host: string): boolean {
    return domain === host || domain === `.${host}`;
  },
};

const identity = (c: StoredCookie): Identity => ({ name: c.name, domain: c.domain, path: c.path });

/** The stored cookies a listing can show: anything without a string name and domain is left out (record.ts keeps them for restore to report). */
function cookiesOf(data: SiteData): StoredCookie[] {
  return (data.cookies ?? []).filter(
    (c) => isObject(c) && typeof c.name === "string" && typeof c.domain === "string",
  );
}

/** One grouping of a snapshot: storage by host and origin, cookies indexed by domain. */
export class Jar {
  readonly cookies: StoredCookie[];
  /** host → origin → its two storages. */
  readonly storage = new Map<string, Map<string, { local: Items; session: Items; idb: IdbDatabase[] }>>();
  private readonly byDomain = new Map<string, StoredCookie[]>();
  private readonly position = new Map<StoredCookie, number>();

  constructor(data: SiteData) {
    this.cookies = cookiesOf(data);
    for (const [i, c] of this.cookies.entries()) {
      this.position.set(c, i);
      const d = c.domain.toLowerCase();
      const list = this.byDomain.get(d);
      if (list) list.push(c);
      else this.byDomain.set(d, [c]);
    }
    for (const [o, e] of Object.entries(data.origins ?? {})) {
      const host = hostOfUrl(o);
      if (!host) continue;
      const entry = this.entry(host, o);
      entry.local = e.local;
      entry.idb = storedIdb(e);
    }
    // sessionStorage is one tab's, for the origin the save was made on; empty, it makes no row.
    const session = data.session ?? {};
    const items = session.items ?? {};
    if (typeof session.origin === "string" && session.origin && Object.keys(items).length) {
      const host = hostOfUrl(session.origin);
      if (host) this.entry(host, session.origin).session = items;
    }
  }

  private entry(host: string, origin: string) {
    let byOrigin = this.storage.get(host);
    if (!byOrigin) {
      byOrigin = new Map();
      this.storage.set(host, byOrigin);
    }
    let e = byOrigin.get(origin);
    if (!e) {
      e = { local: {}, session: {}, idb: [] as IdbDatabase[] };
      byOrigin.set(origin, e);
    }
    return e;
  }

  /** Every cookie whose domain reaches `host`, in jar order: looked up by domain, never a scan. */
  covering(host: string): StoredCookie[] {
    const found: StoredCookie[] = [];
    const labels = host.split(".");
    for (let i = 0; i < labels.length; i++) {
      const suffix = labels.slice(i).join(".");
      for (const domain of i === 0 ? [suffix, `.${suffix}`] : [`.${suffix}`]) {
        for (const c of this.byDomain.get(domain) ?? []) if (rules.covers(domain, host)) found.push(c);
      }
    }
    return found.sort((a, b) => (this.position.get(a) as number) - (this.position.get(b) as number));
  }

  /** The rows: storage hosts, plus each cookie domain that no storage host is reached by. */
  hosts(): string[] {
    const hosts = new Set(this.storage.keys());
    // Every dotted domain that reaches a storage host: `.host` and `.parent` for each of its parents.
    const reached = new Set<string>();
    for (const host of this.storage.keys()) {
      const labels = host.split(".");
      for (let i = 0; i < labels.length; i++) reached.add(`.${labels.slice(i).join(".")}`);
    }
    for (const domain of this.byDomain.keys()) {
      const bare = domain.replace(/^\.+/, "");
      if (!bare || hosts.has(bare) || reached.has(domain)) continue;
      hosts.add(bare);
    }
    return [...hosts].sort();
  }
}

/** The hosts of a history, most recent first, each once. */
export function historyHosts(history: readonly Visit[] | null | undefined): string[] {
  const out = new Set<string>();
  for (const v of history ?? []) {
    const h = hostOfUrl(v.origin);
    if (h) out.add(h);
  }
  return [...out];
}

function cookieDetail(c: StoredCookie, host: string): CookieDetail {
  return {
    name: c.name,
    value: c.http_only ? REDACTED_DOTS : String(c.value ?? ""),
    domain: c.domain,
    path: typeof c.path === "string" ? c.path : "/",
    expiry: typeof c.expiry === "number" ? c.expiry : null,
    http_only: c.http_only === true,
    secure: c.secure === true,
    same_site: typeof c.same_site === "string" ? c.same_site : null,
    shared: !rules.own(c.domain, host),
  };
}

/** The listing and every host in full, from one grouping of the jar. History hosts come first. */
export function listingAndDetails(
  data: SiteData | null | undefined,
  history: readonly Visit[] = [],
): { listing: SiteListing; details: Record<string, SiteDetail> } {
  const snap = data ?? {};
  const jar = new Jar(snap);
  const hosts = jar.hosts();
  const stored = new Set(hosts);
  const visited = historyHosts(history).filter((h) => stored.has(h));
  const seen = new Set(visited);
  const ordered = [...visited, ...hosts.filter((h) => !seen.has(h))];
  const sites: SiteRow[] = [];
  const details: Record<string, SiteDetail> = {};
  for (const host of ordered) {
    const cookies = jar.covering(host);
    const byOrigin = jar.storage.get(host) ?? new Map();
    const storage = [...byOrigin.keys()].sort().map((o) => {
      const e = byOrigin.get(o) as { local: Items; session: Items; idb: IdbDatabase[] };
      const entry = { origin: o, local_storage: e.local, session_storage: e.session };
      return e.idb.length ? { ...entry, indexeddb: idbDetail(e.idb) } : entry;
    });
    sites.push({
      site: host,
      uri: siteUri(host),
      cookies: cookies.length,
      storage: storage.map((s) => {
        const counts = {
          origin: s.origin,
          local_storage: Object.keys(s.local_storage).length,
          session_storage: Object.keys(s.session_storage).length,
        };
        const dbs = "indexeddb" in s ? s.indexeddb : undefined;
        if (!dbs) return counts;
        const records = dbs.reduce((n, d) => n + d.stores.reduce((m, st) => m + st.records.length, 0), 0);
        return { ...counts, indexeddb: { databases: dbs.length, records } };
      }),
    });
    const own = cookies.filter((c) => rules.own(c.domain, host));
    details[host] = {
      site: host,
      uri: siteUri(host),
      cookies: cookies.map((c) => cookieDetail(c, host)),
      storage,
      own_cookies: own.map((c) => c.name),
      kept_shared: cookies.filter((c) => !own.includes(c)).map(identity),
    };
  }
  const savedAt = snap.saved_at ?? null;
  return { listing: { sites, saved_at: savedAt, uri: SITE_DATA_URI }, details };
}

/** workspace://site-data: one row per host with counts, never a value. */
export function siteListing(data: SiteData | null | undefined, history: readonly Visit[] = []): SiteListing {
  return listingAndDetails(data, history).listing;
}

/** workspace://site-data/{site}: one host in full (httpOnly values redacted), or null. */
export function siteDetail(data: SiteData | null | undefined, site: string): SiteDetail | null {
  const { details } = listingAndDetails(data);
  const host = site.toLowerCase();
  // Own keys only: `__proto__` or `constructor` is a site nobody saved, not Object's.
  return Object.hasOwn(details, host) ? (details[host] as SiteDetail) : null;
}

/** `{sites, uri}` for workspace://current, or null when nothing is saved. */
export function summary(data: SiteData | null | undefined): { sites: number; uri: string } | null {
  const n = siteListing(data).sites.length;
  return n > 0 ? { sites: n, uri: SITE_DATA_URI } : null;
}

export interface Forgotten {
  site: string;
  cookies: string[];
  origins: string[];
  kept_shared: Identity[];
}

/**
 * Removes one host from the snapshot: its storage (sessionStorage included) and its own cookies
 * (host or .host). Parent-domain cookies stay (other hosts use them), and so does saved_at.
 * `removed` is null when the host has nothing of its own.
 */
export function forget(
  data: SiteData | null | undefined,
  site: string,
): { left: SiteData; removed: Forgotten | null } {
  const host = site.toLowerCase();
  const snap: SiteData = data ?? {};
  const jar = new Jar(snap);
  const covering = jar.covering(host);
  const gone = new Set(covering.filter((c) => rules.own(c.domain, host)));
  const stored = snap.origins ?? {};
  const origins = Object.keys(stored).filter((o) => hostOfUrl(o) === host);
  const sessionOrigin = snap.session?.origin ?? "";
  const ours = sessionOrigin !== "" && hostOfUrl(sessionOrigin) === host;
  const sessionItems = ours && Object.keys(snap.session?.items ?? {}).length > 0;
  if (sessionItems && !origins.includes(sessionOrigin)) origins.push(sessionOrigin);
  if (gone.size === 0 && origins.length === 0) return { left: snap, removed: null };
  const left: SiteData = {
    ...snap,
    cookies: (snap.cookies ?? []).filter((c) => !gone.has(c)),
    origins: Object.fromEntries(Object.entries(stored).filter(([o]) => hostOfUrl(o) !== host)),
  };
  if (ours) left.session = {};
  return {
    left,
    removed: {
      site: host,
      cookies: covering.filter((c) => gone.has(c)).map((c) => c.name),
      origins,
      kept_shared: covering.filter((c) => !gone.has(c)).map(identity),
    },
  };
}

export interface SecretRow {
  name: string;
  description: string;
  keys: string[];
}
export interface HistoryRow {
  site: string;
  url: string;
  at: number;
  saved: { cookies: number; local: number; session: number } | null;
  secrets: SecretRow[];
}

/**
 * The admin's History: one row per host the workspace went to (current first), its latest page,
 * what is saved there, and the secrets allowed there. Secrets join a row and never make one.
 * `clears` names the origins a History Clear removes (every entry but the top one).
 */
export function historyRows(
  history: readonly Visit[],
  data: SiteData | null | undefined,
  secretsFor: (host: string) => SecretRow[],
): { sites: HistoryRow[]; clears: string[] } {
  const rows = new Map(siteListing(data, history).sites.map((r) => [r.site, r]));
  const sites: HistoryRow[] = [];
  for (const host of historyHosts(history)) {
    const latest = history.find((v) => hostOfUrl(v.origin) === host) as Visit;
    const row = rows.get(host);
    sites.push({
      site: host,
      url: latest.url,
      at: latest.at,
      saved: row
        ? {
            cookies: row.cookies,
            local: row.storage.reduce((n, s) => n + s.local_storage, 0),
            session: row.storage.reduce((n, s) => n + s.session_storage, 0),
          }
        : null,
      secrets: secretsFor(host),
    });
  }
  return { sites, clears: history.slice(1).map((v) => v.origin) };
}
