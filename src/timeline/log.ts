// Where timelines are kept: a workspace's folder in the data dir (entries as JSON lines, screens as
// JPEGs beside them), or the record store without a data dir (Redis: a list per workspace; the
// embedded store: this process's memory, which is where that store keeps its records too). None of
// it is the workspace record: an entry is written on its own, never inside store.update's fn.
//
//   DATA_DIR/sessions/<name>/timeline/entries.jsonl
//   DATA_DIR/sessions/<name>/timeline/screens/<n>.jpg
import { constants, lstatSync } from "node:fs";
import { mkdir, open, readdir, rename, rm, unlink } from "node:fs/promises";
import { join } from "node:path";
import { RedisClient } from "bun";
import { workspaceDir } from "../files/layout.ts";
import { codeOf, DIR_MODE, FILE_MODE, openNoFollow } from "../files/store.ts";
import { log } from "../log.ts";
import { type NewEntry, TimelineEntry } from "./entry.ts";
import { KeyedQueue } from "./queue.ts";

export const TIMELINE_DIR = "timeline";
const ENTRIES = "entries.jsonl";
const SCREENS = "screens";

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

const EMPTY: Summary = { entries: 0, screens: 0, last: 0, newest: 0 };

function parseLine(line: string): TimelineEntry | null {
  if (!line) return null;
  try {
    const got = TimelineEntry.safeParse(JSON.parse(line));
    return got.success ? got.data : null;
  } catch {
    return null;
  }
}

/** Whether `path` is a real folder, not a symlink to one (a planted link is never followed). */
function realDir(path: string): boolean {
  try {
    const st = lstatSync(path);
    return st.isDirectory() && !st.isSymbolicLink();
  } catch {
    return false;
  }
}

interface DiskState {
  /** Lines in the file (may run past `keep` until the next compaction). */
  lines: number;
  last: number;
  newest: number;
  /** The numbers of the entries that have a screen. */
  screened: number[];
}

/** The data dir's timelines. Entries are appended as lines; past `keep` plus some slack the file is rewritten. */
export class DiskLog implements TimelineLog {
  readonly screens = true;
  private readonly lock = new KeyedQueue();
  private readonly states = new Map<string, DiskState>();

  constructor(
    private readonly root: string,
    private readonly keep: number,
  ) {}

  private dir(workspace: string): string {
    return join(workspaceDir(this.root, workspace), TIMELINE_DIR);
  }

  private async read(workspace: string): Promise<TimelineEntry[]> {
    const dir = this.dir(workspace);
    if (!realDir(dir)) return [];
    const fh = await openNoFollow(join(dir, ENTRIES));
    if (!fh) return [];
    try {
      const text = await fh.readFile("utf8");
      return text.split("\n").flatMap((l) => parseLine(l) ?? []);
    } finally {
      await fh.close();
    }
  }

  private async state(workspace: string): Promise<DiskState> {
    let st = this.states.get(workspace);
    if (!st) {
      const entries = await this.read(workspace);
      const newest = entries[entries.length - 1];
      st = {
        lines: entries.length,
        last: entries.reduce((m, e) => Math.max(m, e.n), 0),
        newest: newest?.time ?? 0,
        screened: entries.filter((e) => e.screen).map((e) => e.n),
      };
      this.states.set(workspace, st);
    }
    return st;
  }

  /** Makes `dir` (owner-only) and checks it is a real folder. */
  private async folder(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    if (!realDir(dir)) throw new Error("the timeline folder is not a real folder");
  }

  private async write(path: string, data: Uint8Array | string, flags: number): Promise<void> {
    const fh = await open(
      path,
      flags | constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW,
      FILE_MODE,
    );
    try {
      await fh.writeFile(data);
    } finally {
      await fh.close();
    }
  }

  append(workspace: string, entry: NewEntry, screen: Uint8Array | null): Promise<TimelineEntry> {
    return this.lock.run(workspace, async () => {
      const st = await this.state(workspace);
      const dir = this.dir(workspace);
      await this.folder(dir);
      const n = st.last + 1;
      let shot = false;
      if (screen) {
        try {
          await this.folder(join(dir, SCREENS));
          await this.write(join(dir, SCREENS, `${n}.jpg`), screen, constants.O_TRUNC);
          shot = true;
        } catch (err) {
          log.warn(`workspace ${workspace}: a timeline screen was not kept: ${codeOf(err) ?? "error"}`);
        }
      }
      const full: TimelineEntry = { ...entry, n, ...(shot ? { screen: true } : {}) };
      await this.write(join(dir, ENTRIES), `${JSON.stringify(full)}\n`, constants.O_APPEND);
      st.lines++;
      st.last = n;
      st.newest = full.time;
      if (shot) st.screened.push(n);
      if (st.lines > this.keep + Math.max(20, Math.floor(this.keep / 4))) await this.compact(workspace, st);
      return full;
    });
  }

  /** Rewrites the file with the newest `keep` entries (a temp file, then a rename) and drops the rest's screens. */
  private async compact(workspace: string, st: DiskState): Promise<void> {
    const dir = this.dir(workspace);
    const entries = await this.read(workspace);
    const kept = entries.slice(-this.keep);
    const from = kept[0]?.n ?? st.last + 1;
    await this.rewrite(workspace, kept);
    for (const n of st.screened.filter((x) => x < from)) {
      await unlink(join(dir, SCREENS, `${n}.jpg`)).catch(() => undefined);
    }
    st.lines = kept.length;
    st.screened = st.screened.filter((x) => x >= from);
  }

  private async rewrite(workspace: string, entries: TimelineEntry[]): Promise<void> {
    const dir = this.dir(workspace);
    const tmp = join(dir, `.${ENTRIES}.tmp`);
    await rm(tmp, { force: true });
    await this.write(tmp, entries.map((e) => `${JSON.stringify(e)}\n`).join(""), constants.O_EXCL);
    await rename(tmp, join(dir, ENTRIES));
  }

  async all(workspace: string): Promise<TimelineEntry[]> {
    return (await this.read(workspace)).slice(-this.keep);
  }

  async screen(workspace: string, n: number): Promise<Uint8Array | null> {
    const dir = join(this.dir(workspace), SCREENS);
    if (!Number.isSafeInteger(n) || n < 1 || !realDir(this.dir(workspace)) || !realDir(dir)) return null;
    const fh = await openNoFollow(join(dir, `${n}.jpg`));
    if (!fh) return null;
    try {
      return new Uint8Array(await fh.readFile());
    } finally {
      await fh.close();
    }
  }

  clear(workspace: string, what: "screens" | "all"): Promise<number> {
    return this.lock.run(workspace, async () => {
      const dir = this.dir(workspace);
      const st = await this.state(workspace);
      if (!realDir(dir)) {
        this.states.delete(workspace);
        return 0;
      }
      if (what === "all") {
        const n = Math.min(st.lines, this.keep);
        await rm(dir, { recursive: true, force: true });
        this.states.delete(workspace);
        return n;
      }
      const screens = join(dir, SCREENS);
      let gone = 0;
      if (realDir(screens)) {
        for (const name of await readdir(screens)) {
          await unlink(join(screens, name)).then(
            () => gone++,
            () => undefined,
          );
        }
      }
      const entries = await this.read(workspace);
      if (entries.some((e) => e.screen)) {
        await this.rewrite(
          workspace,
          entries.map(({ screen: _, ...e }) => e),
        );
      }
      st.screened = [];
      return gone;
    });
  }

  async summary(workspace: string): Promise<Summary> {
    const st = await this.state(workspace);
    if (st.lines === 0) return EMPTY;
    const first = st.last - this.keep + 1;
    return {
      entries: Math.min(st.lines, this.keep),
      screens: st.screened.filter((n) => n >= first).length,
      last: st.last,
      newest: st.newest,
    };
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

/**
 * Without a data dir and with Redis: a list per workspace beside the records (`<prefix>!timeline:<name>`,
 * a mark no workspace name can start with), trimmed to `keep`, living as long as a record does.
 */
export class RedisLog implements TimelineLog {
  readonly screens = false;
  private client: RedisClient | null = null;

  constructor(
    private readonly url: string,
    private readonly prefix: string,
    private readonly keep: number,
    private readonly ttl: number,
  ) {}

  private get redis(): RedisClient {
    this.client ??= new RedisClient(this.url, {
      connectionTimeout: 3000,
      maxRetries: 3,
      autoReconnect: true,
    });
    return this.client;
  }

  private keys(workspace: string): [string, string] {
    return [`${this.prefix}!timeline:${workspace}`, `${this.prefix}!timeline-n:${workspace}`];
  }

  async append(workspace: string, entry: NewEntry): Promise<TimelineEntry> {
    const [list, counter] = this.keys(workspace);
    const n = Number(await this.redis.send("INCR", [counter]));
    const full: TimelineEntry = { ...entry, n };
    const ttl = String(Math.max(1, Math.ceil(this.ttl)));
    await Promise.all([
      this.redis.send("RPUSH", [list, JSON.stringify(full)]),
      this.redis.send("LTRIM", [list, String(-this.keep), "-1"]),
      this.redis.send("EXPIRE", [list, ttl]),
      this.redis.send("EXPIRE", [counter, ttl]),
    ]);
    return full;
  }

  async all(workspace: string): Promise<TimelineEntry[]> {
    const [list] = this.keys(workspace);
    const lines = (await this.redis.send("LRANGE", [list, "0", "-1"])) as string[] | null;
    return (lines ?? []).flatMap((l) => parseLine(String(l)) ?? []);
  }

  async screen(): Promise<null> {
    return null;
  }

  async clear(workspace: string, what: "screens" | "all"): Promise<number> {
    if (what === "screens") return 0;
    const [list, counter] = this.keys(workspace);
    const n = Number(await this.redis.send("LLEN", [list]));
    await this.redis.send("DEL", [list, counter]);
    return n;
  }

  async summary(workspace: string): Promise<Summary> {
    const [list, counter] = this.keys(workspace);
    const [len, last, newest] = await Promise.all([
      this.redis.send("LLEN", [list]),
      this.redis.send("GET", [counter]),
      this.redis.send("LINDEX", [list, "-1"]),
    ]);
    const entry = newest ? parseLine(String(newest)) : null;
    if (!entry) return EMPTY;
    return { entries: Number(len), screens: 0, last: Number(last ?? 0), newest: entry.time };
  }

  close(): void {
    this.client?.close();
    this.client = null;
  }
}
