// The data dir's timelines: a workspace's entries as JSON lines, its screens as JPEGs beside them,
// never through a symlink.
//
//   DATA_DIR/sessions/<name>/timeline/entries.jsonl
//   DATA_DIR/sessions/<name>/timeline/screens/<n>.jpg
import { constants, lstatSync } from "node:fs";
import { mkdir, open, readdir, rename, rm, unlink } from "node:fs/promises";
import { join } from "node:path";
import { workspaceDir } from "../files/layout.ts";
import { codeOf, DIR_MODE, FILE_MODE, openNoFollow } from "../files/store-disk.ts";
import { KeyedQueue } from "../kit/queue.ts";
import { ENTRY_CAP, type NewEntry, type TimelineEntry } from "./entry.ts";
import { EMPTY, parseLine, type Summary, type TimelineLog } from "./log.ts";

export const TIMELINE_DIR = "timeline";
const ENTRIES = "entries.jsonl";
const SCREENS = "screens";
/** How much of the file's tail one read takes. */
const TAIL_CHUNK = 64 * 1024;

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
  /** Bytes read from entries files so far (a test measures a listing by it). */
  bytesRead = 0;

  constructor(
    private readonly root: string,
    private readonly keep: number,
    /** Told when a screen could not be kept (its entry is kept without it). */
    private readonly warn: (message: string) => void = () => undefined,
  ) {}

  /** Lines past `keep` before the file is rewritten. */
  private get slack(): number {
    return Math.max(20, Math.floor(this.keep / 4));
  }

  private dir(workspace: string): string {
    return join(workspaceDir(this.root, workspace), TIMELINE_DIR);
  }

  /**
   * The newest `keep` entries, read from the file's tail in chunks: a 127 MB file costs what its
   * last lines weigh (at most `keep` entries of ENTRY_CAP each, twice over for lines written before
   * the cap). `whole` says whether the file's start was reached.
   */
  private async read(workspace: string): Promise<TimelineEntry[] & { whole?: boolean }> {
    const dir = this.dir(workspace);
    if (!realDir(dir)) return [];
    const fh = await openNoFollow(join(dir, ENTRIES));
    if (!fh) return [];
    try {
      const size = (await fh.stat()).size;
      const budget = Math.max(TAIL_CHUNK, this.keep * ENTRY_CAP * 2);
      const chunks: Buffer[] = [];
      let at = size;
      let lines = 0;
      while (at > 0 && size - at < budget && lines <= this.keep) {
        const len = Math.min(TAIL_CHUNK, at);
        at -= len;
        const buf = Buffer.alloc(len);
        await fh.read(buf, 0, len, at);
        this.bytesRead += len;
        chunks.unshift(buf);
        for (const b of buf) if (b === 10) lines++;
      }
      let text = Buffer.concat(chunks).toString("utf8");
      // Not at the start: the first line may be a piece of one.
      if (at > 0) text = text.slice(text.indexOf("\n") + 1);
      const entries: TimelineEntry[] & { whole?: boolean } = text
        .split("\n")
        .flatMap((l) => parseLine(l) ?? [])
        .slice(-this.keep);
      entries.whole = at === 0;
      return entries;
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
        // A file read only in part holds more than `keep`: the next append compacts it.
        lines: entries.whole === false ? this.keep + this.slack + 1 : entries.length,
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
          this.warn(`workspace ${workspace}: a timeline screen was not kept: ${codeOf(err) ?? "error"}`);
        }
      }
      const full: TimelineEntry = { ...entry, n, ...(shot ? { screen: true } : {}) };
      await this.write(join(dir, ENTRIES), `${JSON.stringify(full)}\n`, constants.O_APPEND);
      st.lines++;
      st.last = n;
      st.newest = full.time;
      if (shot) st.screened.push(n);
      if (st.lines > this.keep + this.slack) await this.compact(workspace, st);
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
