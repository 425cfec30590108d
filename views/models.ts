// What each admin view reads. The pages hand the views the admin's read models in-process (the
// compiler checks that each fits); these name only the fields a view draws, optional where the
// view copes without one, so a test can give a view less than the server would.

import type { ActivityNote as FullNote } from "../src/admin/activity.ts";
import type { FileEntry as FullFileEntry } from "../src/files/uris.ts";
import type {
  CookieDetail as FullCookie,
  HistoryRow as FullHistoryRow,
  SiteDetail as FullSiteDetail,
  SiteRow as FullSiteRow,
} from "../src/site-data/by-host.ts";

// A view's slice of a read model: the fields it cannot draw without, and the rest optional.
type Slice<T, Need extends keyof T> = Pick<T, Need> & Partial<Omit<T, Need>>;

export type CookieView = Slice<FullCookie, "name" | "value" | "domain">;
export type SiteRow = Pick<FullSiteRow, "site" | "cookies" | "storage">;
export type SiteDetail = Omit<FullSiteDetail, "uri" | "cookies"> & { cookies: CookieView[] };

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

export type HistoryRow = Omit<FullHistoryRow, "secrets"> & { secrets: SecretLine[] };

export interface HistoryPayload {
  sites: HistoryRow[];
  /** The origins a Clear removes (every entry but the top one). */
  clears?: string[];
}

export type FileEntry = Slice<FullFileEntry, "name">;

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

export type ActivityNote = Slice<FullNote, "time" | "workspace" | "tool" | "status" | "ms">;
