// An owed recording: its note, the store, claims and options filing it needs, its filed name.

import type { Events } from "../kit/events.ts";
import type { Log } from "../log.ts";

export interface Note {
  opened: number;
  ended: number | null;
  browser: string;
  /** The name a server began filing it under. */
  filing?: string;
}

/** What the collector needs of the workspace folders (FileStore has it). */
export interface CollectorStore {
  writeNote(workspace: string, gridId: string, note: Note): void;
  readNote(workspace: string, gridId: string): Note | null;
  deleteNote(workspace: string, gridId: string): boolean;
  notes(unreadable?: (workspace: string) => void): Array<{ workspace: string; gridId: string; note: Note }>;
  /** Files the recording from `source` (or goes on with a filing a stopped server began); null when it was filed. */
  fileRecording(
    workspace: string,
    gridId: string,
    source: string,
    name: string,
  ): Promise<{ name: string } | null>;
}

/** A recording's claim: only its holder files it or gives up on it. */
export interface Claims {
  /** The claim now, or null when another server holds it. */
  tryTake(name: string): Promise<{ release(): Promise<void> } | null>;
}

/** One server alone: every claim is its own. */
export const SOLO: Claims = { tryTake: async () => ({ release: async () => undefined }) };

export interface CollectorOptions {
  /** The server's log (a log of its own when none is given). */
  log?: Log;
  store: CollectorStore;
  inbox: string;
  /**
   * The Grid's live browser ids, or null when it did not answer (then every browser counts as
   * alive: the Grid can blip). One /status call, which unlike a WebDriver call does not keep an
   * idle browser from being reaped.
   */
  liveIds: () => Promise<ReadonlySet<string> | null>;
  /** Seconds after a browser ends to wait for its recording. */
  wait: number;
  polling: boolean;
  pollMs: number;
  /** The change bus: a recording filed into a workspace changed its files. */
  events?: Pick<Events, "changed">;
  /** Epoch seconds. */
  clock?: () => number;
  /** Seconds between liveness looks, and the longest wait between sweeps (fixed in production). */
  tick?: number;
  /** Seconds a file with no trailer must stay unchanged, its browser gone, before it is filed. */
  idleAfter?: number;
  /** Claims in the record store, shared by the servers of a group (default: this server alone). */
  claims?: Claims;
}

export interface Owed {
  workspace: string;
  gridId: string;
  /** Epoch ms. */
  opened: number;
  browser: string;
  /** Epoch ms, or null while the browser may live. */
  ended: number | null;
  /** Epoch seconds of the last liveness look. */
  checked: number;
  /** A server began filing it under this name (and may have stopped mid-way). */
  filing?: string;
}

/** `rec-YYYYMMDD-HHMM.mp4`, in UTC, from when the browser opened. */
export function nameFor(openedMs: number): string {
  const d = new Date(openedMs);
  const p = (n: number) => String(n).padStart(2, "0");
  return `rec-${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}.mp4`;
}

export const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

export function noteOf(owed: Owed): Note {
  return { opened: owed.opened, ended: owed.ended, browser: owed.browser };
}
