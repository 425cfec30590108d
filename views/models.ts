// What each admin view reads. The pages hand the views the admin's read models in-process (the
// compiler checks that each fits); these name only the fields a view draws, optional where the
// view copes without one, so a test can give a view less than the server would.

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
  size?: number | null;
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
