// The admin API's JSON as the views read it. Every field is read defensively: a pane renders what
// its route returns, and a route another capability owns may add fields or lack some.

export type Row = Record<string, unknown> & {
  key: string;
  live?: boolean;
  url?: string | null;
  recording?: boolean;
  gone?: boolean;
};

export interface CookieView {
  name: string;
  value: string;
  domain: string;
  path?: string;
  expiry?: number | null;
  http_only?: boolean;
  secure?: boolean;
  shared?: boolean;
}

export interface SiteRow {
  site: string;
  cookies: number;
  storage: Array<{ origin: string; local_storage: number; session_storage: number }>;
}

export interface SiteDetail {
  site: string;
  cookies: CookieView[];
  storage: Array<{
    origin: string;
    local_storage: Record<string, string>;
    session_storage: Record<string, string>;
  }>;
  own_cookies: string[];
  kept_shared: Array<{ name: string; domain: string; path: string }>;
}

export interface SiteDataPayload {
  sites: SiteRow[];
  saved_at: number | null;
  details: Record<string, SiteDetail>;
}

export interface SecretLine {
  name: string;
  description?: string;
  keys?: string[];
  allowed_urls?: string[];
}

export interface HistoryRow {
  site: string;
  url: string;
  at: number;
  saved: { cookies: number; local: number; session: number } | null;
  secrets: SecretLine[];
}

export interface HistoryPayload {
  sites: HistoryRow[];
  /** The origins a Clear removes (every entry but the top one). */
  clears?: string[];
}

export interface FileEntry {
  name: string;
  url?: string;
  content_type?: string;
  image?: boolean;
  size?: number;
}

export interface FilesPayload {
  /** Why files are off on this server, when they are. */
  off?: string;
  screenshots?: FileEntry[];
  recordings?: FileEntry[];
  files?: FileEntry[];
  downloads?: FileEntry[];
}

export interface FlowEntry {
  name: string;
  description?: string;
  /** A global flow (every workspace can run it) rather than the workspace's own. */
  global?: boolean;
  steps?: number;
  /** Why it cannot run as written. */
  problem?: string;
  yaml?: string;
  /** Why its YAML could not be read (the API's error). */
  error?: string;
}

export interface FlowsPayload {
  enabled?: boolean;
  flows?: FlowEntry[];
}

export interface Setting {
  key: string;
  value: unknown;
  source: string;
  description?: string;
}

export interface Call {
  time: number;
  workspace: string;
  tool: string;
  surface?: string;
  status: number;
  ms: number;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown, fallback = ""): string => (typeof v === "string" ? v : fallback);
const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strings = (v: unknown): string[] => list(v).filter((x): x is string => typeof x === "string");
const items = (v: unknown): Record<string, string> =>
  isObject(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, str(x, String(x))])) : {};

/** The Site data payload with every part it lacks filled in empty. */
export function siteDataOf(body: unknown): SiteDataPayload {
  const b = isObject(body) ? body : {};
  const details = isObject(b.details) ? b.details : {};
  return {
    sites: list(b.sites)
      .filter(isObject)
      .map((s) => ({
        site: str(s.site),
        cookies: count(s.cookies),
        storage: list(s.storage)
          .filter(isObject)
          .map((o) => ({
            origin: str(o.origin),
            local_storage: count(o.local_storage),
            session_storage: count(o.session_storage),
          })),
      })),
    saved_at: typeof b.saved_at === "number" ? b.saved_at : null,
    details: Object.fromEntries(
      Object.entries(details)
        .filter(([, d]) => isObject(d))
        .map(([host, d]) => {
          const x = d as Record<string, unknown>;
          return [
            host,
            {
              site: str(x.site, host),
              cookies: list(x.cookies)
                .filter(isObject)
                .map((c) => ({
                  name: str(c.name),
                  value: str(c.value),
                  domain: str(c.domain),
                  path: str(c.path, "/"),
                  expiry: typeof c.expiry === "number" ? c.expiry : null,
                  http_only: c.http_only === true,
                  secure: c.secure === true,
                  shared: c.shared === true,
                })),
              storage: list(x.storage)
                .filter(isObject)
                .map((o) => ({
                  origin: str(o.origin),
                  local_storage: items(o.local_storage),
                  session_storage: items(o.session_storage),
                })),
              own_cookies: strings(x.own_cookies),
              kept_shared: list(x.kept_shared)
                .filter(isObject)
                .map((k) => ({ name: str(k.name), domain: str(k.domain), path: str(k.path, "/") })),
            },
          ];
        }),
    ),
  };
}

function secretOf(s: Record<string, unknown>): SecretLine {
  return {
    name: str(s.name),
    description: str(s.description),
    keys: strings(s.keys),
    allowed_urls: strings(s.allowed_urls),
  };
}

/** The History payload, read defensively. */
export function historyOf(body: unknown): HistoryPayload {
  const b = isObject(body) ? body : {};
  return {
    sites: list(b.sites)
      .filter(isObject)
      .map((r) => {
        const saved = isObject(r.saved) ? r.saved : null;
        return {
          site: str(r.site),
          url: str(r.url),
          at: count(r.at),
          saved: saved
            ? { cookies: count(saved.cookies), local: count(saved.local), session: count(saved.session) }
            : null,
          secrets: list(r.secrets).filter(isObject).map(secretOf),
        };
      }),
    clears: Array.isArray(b.clears) ? strings(b.clears) : undefined,
  };
}

function fileOf(f: Record<string, unknown>): FileEntry {
  return {
    name: str(f.name),
    url: typeof f.url === "string" ? f.url : undefined,
    content_type: typeof f.content_type === "string" ? f.content_type : undefined,
    image: f.image === true,
    size: typeof f.size === "number" ? f.size : undefined,
  };
}

/** The Files payload: its four folders (a folder given as an object with `files`/`items` works too). */
export function filesOf(body: unknown): Required<FilesPayload> {
  const b = isObject(body) ? body : {};
  const sections = isObject(b.sections) ? b.sections : b;
  const folder = (name: string): FileEntry[] => {
    const v = sections[name];
    const entries = Array.isArray(v) ? v : isObject(v) ? list(v.files ?? v.items ?? v.entries) : [];
    return entries.filter(isObject).map(fileOf);
  };
  return {
    off: typeof b.off === "string" ? b.off : "",
    screenshots: folder("screenshots"),
    recordings: folder("recordings"),
    files: folder("files"),
    downloads: folder("downloads"),
  };
}

/** The Flows payload, read defensively. */
export function flowsOf(body: unknown): Required<FlowsPayload> {
  const b = isObject(body) ? body : {};
  return {
    enabled: b.enabled !== false,
    flows: list(b.flows)
      .map((f) => (typeof f === "string" ? { name: f } : f))
      .filter(isObject)
      .map((f) => ({
        name: str(f.name),
        description: typeof f.description === "string" ? f.description : undefined,
        global: f.global === true || f.source === "global",
        steps: typeof f.steps === "number" ? f.steps : Array.isArray(f.steps) ? f.steps.length : undefined,
        problem: typeof f.problem === "string" ? f.problem : undefined,
        yaml: typeof f.yaml === "string" ? f.yaml : undefined,
      })),
  };
}

export function secretsOf(body: unknown): SecretLine[] {
  const b = isObject(body) ? body : {};
  return list(b.secrets).filter(isObject).map(secretOf);
}

export function settingsOf(body: unknown): Setting[] {
  const b = isObject(body) ? body : {};
  return list(b.settings)
    .filter(isObject)
    .map((s) => ({
      key: str(s.key),
      value: s.value,
      source: str(s.source, "default"),
      description: str(s.description),
    }));
}

export function callsOf(body: unknown): Call[] {
  const b = isObject(body) ? body : {};
  return list(b.calls)
    .filter(isObject)
    .map((c) => ({
      time: count(c.time),
      workspace: str(c.workspace),
      tool: str(c.tool),
      surface: str(c.surface),
      status: count(c.status),
      ms: count(c.ms),
    }));
}
