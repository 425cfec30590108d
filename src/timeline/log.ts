// Where timelines are kept: a workspace's folder in the data dir (entries as JSON lines, screens as
// JPEGs beside them), or the record store without a data dir (Redis: a list per workspace; the
// embedded store: this process's memory, which is where that store keeps its records too). None of
// it is the workspace record: an entry is written on its own, never inside store.update's fn.
// This file holds the port every log implements and the memory log; disk-log.ts and redis-log.ts
// the others.
import { type NewEntry, TimelineEntry } from "./entry.ts";

export interface Summary {
  entries: number;
  screens: number;
  /** The newest entry's number (0: none). */
  last: number;
  /** The newest entry's time (0: none). */
  newest: number;
}

export interface TimelineLog {
  /** Whether screens can be kept (they need a folder). */
  readonly screens: boolean;
  /** Numbers and appends an entry, with its screen when there is one; keeps the newest `keep`. */
  append(workspace: string, entry: NewEntry, screen: Uint8Array | null): Promise<TimelineEntry>;
  /** Every kept entry, oldest first. */
  all(workspace: string): Promise<TimelineEntry[]>;
  /** The JPEG kept with entry `n`, or null. */
  screen(workspace: string, n: number): Promise<Uint8Array | null>;
  /** Deletes the screens (the entries stay) or everything; how many went. */
  clear(workspace: string, what: "screens" | "all"): Promise<number>;
  summary(workspace: string): Promise<Summary>;
  close?(): void;
}

export const EMPTY: Summary = { entries: 0, screens: 0, last: 0, newest: 0 };

export function parseLine(line: string): TimelineEntry | null {
  if (!line) return null;
  try {
    const got = TimelineEntry.safeParse(JSON.parse(line));
    return got.success ? got.data : null;
  } catch {
    return null;
  }
}

/** Without a data dir and with the embedded store: timelines in this process's memory, as its records are. */
export class MemoryLog implements TimelineLog {
  readonly screens = false;
  private readonly logs = new Map<string, { entries: TimelineEntry[]; last: number }>();

  constructor(private readonly keep: number) {}

  async append(workspace: string, entry: NewEntry): Promise<TimelineEntry> {
    let l = this.logs.get(workspace);
    if (!l) {
      l = { entries: [], last: 0 };
      this.logs.set(workspace, l);
    }
    const full: TimelineEntry = { ...entry, n: ++l.last };
    l.entries.push(full);
    if (l.entries.length > this.keep) l.entries.splice(0, l.entries.length - this.keep);
    return full;
  }

  async all(workspace: string): Promise<TimelineEntry[]> {
    return [...(this.logs.get(workspace)?.entries ?? [])];
  }

  async screen(): Promise<null> {
    return null;
  }

  async clear(workspace: string, what: "screens" | "all"): Promise<number> {
    if (what === "screens") return 0;
    const n = this.logs.get(workspace)?.entries.length ?? 0;
    this.logs.delete(workspace);
    return n;
  }

  async summary(workspace: string): Promise<Summary> {
    const l = this.logs.get(workspace);
    const newest = l?.entries[l.entries.length - 1];
    if (!l || !newest) return EMPTY;
    return { entries: l.entries.length, screens: 0, last: l.last, newest: newest.time };
  }
}
