// The collector files each owed recording into its workspace as soon as it is finished.
//
// The Grid films; the operator's transport delivers the MP4 into the inbox (recording.dir); this
// files it. The queue is the notes on disk (sessions/<name>/recordings/.pending/<gridId>.json),
// written before a recorded open returns, so a restart resumes. The engine is one loop in the
// server's event loop that runs only while a recording is owed: it sweeps, then waits for a change
// in the inbox (chokidar: events, or polling on a network filesystem) or the liveness tick.
//
// A file whose name holds an owed Grid id and ends in `mfro` is moved in and its note deleted; one
// with no trailer is moved as it is once it has been quiet for a minute and the browser is gone
// (a live recording writes a keyframe at least every ~17 s, so this never files one early); a
// browser not yet known to have ended is looked up, so a file that never comes has a deadline.
//
// In a group, every server watches the one inbox: each looks at the notes on the shared data volume
// every tick and owes what any server noted. Filing or giving up on a recording takes its claim
// in the record store first (a lease on `recording:<gridId>`, tried once), so each is filed
// exactly once; the move itself is staged so that a server stopping mid-move leaves nothing
// half-filed (FileStore.fileRecording), and whoever claims it next finishes it.
//
// It owns no browser, takes no workspace lease, and never logs an inbox file's name: it holds the
// Grid id. Nothing here talks to the Grid's recorder or imports protocol code.
import { type Dirent, stat } from "node:fs";
import { readdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { type FSWatcher, watch } from "chokidar";
import { log } from "../log.ts";
import { InvalidName, validGridId } from "../names.ts";
import { isComplete } from "./mp4.ts";

export const RECORDINGS_FOLDER = "recordings";
/** A transport that writes a temporary name and renames it is still copying. */
export const PARTIAL_SUFFIXES = [".partial", ".part", ".tmp"];
const TICK_S = 30;
const IDLE_AFTER_S = 60;

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
  notes(): Array<{ workspace: string; gridId: string; note: Note }>;
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
const SOLO: Claims = { tryTake: async () => ({ release: async () => undefined }) };

export interface CollectorOptions {
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
  /** A recording was filed into this workspace. */
  onFiled?: (workspace: string) => void;
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

/** The kind of a failure, as the reference's messages name it (never a path, never an id). */
export function errorKind(err: unknown): string {
  if (err instanceof InvalidName) return "InvalidName";
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "PermissionError";
    case "ENOENT":
      return "FileNotFoundError";
    case "EEXIST":
      return "FileExistsError";
    case "ENOTDIR":
      return "NotADirectoryError";
    case "EISDIR":
      return "IsADirectoryError";
    case undefined:
      return err instanceof Error ? err.name : "Error";
    default:
      return `OSError (${code})`;
  }
}

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

export class Collector {
  readonly owed = new Map<string, Owed>();
  readonly inbox: string;
  readonly polling: boolean;
  private readonly store: CollectorStore;
  private readonly opts: CollectorOptions;
  private readonly clock: () => number;
  private readonly tick: number;
  private readonly idleAfter: number;
  private readonly claims: Claims;
  private rescanner: ReturnType<typeof setInterval> | null = null;
  private readonly quiet = new Map<string, { size: number; mtime: number; since: number }>();
  private loop: Promise<void> | null = null;
  private closed = true;
  private watcher: FSWatcher | null = null;
  private dirty = false;
  private wake: (() => void) | null = null;

  constructor(opts: CollectorOptions) {
    this.opts = opts;
    this.store = opts.store;
    this.inbox = opts.inbox;
    this.polling = opts.polling;
    this.clock = opts.clock ?? (() => Date.now() / 1000);
    this.tick = opts.tick ?? TICK_S;
    this.idleAfter = opts.idleAfter ?? IDLE_AFTER_S;
    this.claims = opts.claims ?? SOLO;
  }

  /** Whether the loop runs now (only while something is owed). */
  get running(): boolean {
    return this.loop !== null;
  }

  /**
   * A recorded browser opened: its note is on disk before this returns. Never throws: when the
   * note cannot be written, the browser still records on the Grid; only filing fails, and the
   * returned text says so.
   */
  expect(workspace: string, gridId: string, browser: string): string | null {
    try {
      validGridId(gridId);
      const owed: Owed = {
        workspace,
        gridId,
        opened: Math.floor(this.clock() * 1000),
        browser,
        ended: null,
        checked: 0,
      };
      this.store.writeNote(workspace, gridId, noteOf(owed));
      this.owed.set(gridId, owed);
      this.ensure();
      return null;
    } catch (err) {
      const kind = errorKind(err);
      log.warn(`recording for ${workspace} cannot be filed: ${kind}`);
      return `this recording cannot be filed: ${kind}`;
    }
  }

  /** A browser was ended. Ignored unless its recording is owed and not known to have ended. */
  ended(gridId: string): void {
    const owed = this.owed.get(gridId);
    if (!owed || owed.ended !== null) return;
    this.markEnded(owed, this.clock());
  }

  /**
   * Resumes what the notes say is owed (from before a restart, or noted by another server of the
   * group), runs while anything is, and looks at the notes again every tick.
   */
  async start(): Promise<void> {
    this.closed = false;
    const resumed = this.rescan();
    if (resumed) log.info(`recordings: ${resumed} owed from before the restart`);
    this.rescanner ??= setInterval(() => {
      try {
        const more = this.rescan();
        if (more) log.debug(`recordings: ${more} owed noted by another server`);
      } catch {
        // the next tick looks again
      }
    }, this.tick * 1000);
    this.rescanner.unref?.();
    this.ensure();
  }

  /** Owes what the notes say and this server does not yet; forgets what another server filed. Returns how many it took on. */
  private rescan(): number {
    const notes = this.store.notes();
    const noted = new Set(notes.map((n) => n.gridId));
    for (const gridId of this.owed.keys()) {
      // Filed or given up by another server: nothing to say.
      if (!noted.has(gridId)) this.owed.delete(gridId);
    }
    let taken = 0;
    for (const { workspace, gridId, note } of notes) {
      if (this.owed.has(gridId)) continue;
      this.owed.set(gridId, {
        workspace,
        gridId,
        opened: note.opened || 0,
        browser: note.browser,
        ended: note.ended,
        checked: 0,
        ...(note.filing ? { filing: note.filing } : {}),
      });
      taken++;
    }
    if (taken) this.ensure();
    return taken;
  }

  /** Stops the loop and its watcher; the notes keep the queue. */
  async stop(): Promise<void> {
    if (this.rescanner) clearInterval(this.rescanner);
    this.rescanner = null;
    this.closed = true;
    this.wake?.();
    await this.loop;
    await this.closeWatcher();
  }

  private ensure(): void {
    if (this.loop || this.closed || this.owed.size === 0) return;
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    let crashed = false;
    try {
      await Promise.resolve();
      while (this.owed.size && !this.closed) {
        this.dirty = false;
        await this.sweep();
        if (!this.owed.size || this.closed) break;
        if (!this.watcher) await this.openWatcher();
        await this.nextWake();
      }
    } catch (err) {
      crashed = true;
      log.warn("recordings: the collector stopped; it resumes on the next recording");
      log.debug(`recordings: the collector stopped on ${errorKind(err)}`);
    } finally {
      await this.closeWatcher();
      this.loop = null;
    }
    // Owed while the loop was ending: go round again (a crash waits for the next expect).
    if (!crashed) this.ensure();
  }

  private async openWatcher(): Promise<void> {
    const w = watch(this.inbox, {
      ignoreInitial: true,
      persistent: false,
      ...(this.polling
        ? {
            backend: "polling" as const,
            pollingInterval: this.opts.pollMs,
            pollingBinaryInterval: this.opts.pollMs,
          }
        : {}),
    });
    w.on("all", () => {
      this.dirty = true;
      this.wake?.();
    });
    w.on("error", () => undefined);
    this.watcher = w;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5000);
      w.once("ready", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    // Whatever landed between the last sweep and the watcher being ready raised no event.
    this.dirty = true;
  }

  private async closeWatcher(): Promise<void> {
    const w = this.watcher;
    this.watcher = null;
    if (w) await w.close().catch(() => undefined);
  }

  private nextWake(): Promise<void> {
    if (this.dirty || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, this.tick * 1000);
      this.wake = done;
    });
  }

  /** One look: file what is finished, look up what may have ended, give up on what never came. */
  async sweep(): Promise<void> {
    if (!this.owed.size) return;
    const files = await inboxFiles(this.inbox);
    const now = this.clock();
    let live: ReadonlySet<string> | null | undefined;
    const alive = async (gridId: string) => {
      if (live === undefined) live = await this.opts.liveIds().catch(() => null);
      return live === null || live.has(gridId);
    };
    for (const owed of [...this.owed.values()]) {
      if (!this.owed.has(owed.gridId)) continue;
      const match = files.find((f) => basename(f).includes(owed.gridId));
      if (!match && owed.filing) {
        // A server stopped while filing it, after the inbox file went: finish what it began.
        await this.file(owed, "");
        continue;
      }
      if (match) {
        // While a matching file exists no deadline applies, and a live browser is never early.
        if (await isComplete(match)) {
          await this.file(owed, match);
        } else if ((await this.quietFor(match, now)) >= this.idleAfter && !(await alive(owed.gridId))) {
          log.info(
            `recordings: ${owed.workspace}/${nameFor(owed.opened)} ends without a trailer; filed as it is`,
          );
          await this.file(owed, match);
        }
        continue;
      }
      if (owed.ended === null && now - owed.checked >= this.tick) {
        owed.checked = now;
        if (!(await alive(owed.gridId))) this.markEnded(owed, now);
      }
      if (owed.ended !== null && now * 1000 - owed.ended >= this.opts.wait * 1000) {
        await this.claimed(owed, async () => {
          this.forget(owed);
          log.warn(
            `recording for session ${owed.workspace} (opened ${hhmm(owed.opened)} UTC) never reached RECORDING_DIR; see the README's Recording section`,
          );
        });
      }
    }
  }

  /**
   * Runs `work` under the recording's claim, once its note is known to be there still; a recording
   * another server holds (or filed) is left to it. A store that does not answer: the next sweep.
   */
  private async claimed(owed: Owed, work: () => Promise<void>): Promise<void> {
    const claim = await this.claims.tryTake(`recording:${owed.gridId}`).catch(() => null);
    if (!claim) return;
    try {
      if (!this.store.readNote(owed.workspace, owed.gridId)) {
        this.owed.delete(owed.gridId);
        return;
      }
      await work();
    } finally {
      await claim.release();
    }
  }

  private async file(owed: Owed, path: string): Promise<void> {
    await this.claimed(owed, async () => {
      let landed: { name: string } | null;
      try {
        landed = await this.store.fileRecording(owed.workspace, owed.gridId, path, nameFor(owed.opened));
      } catch (err) {
        // Still owed: the next sweep tries again. Never the file's name: it holds the Grid id.
        log.warn(`recordings: could not file a recording for ${owed.workspace}: ${errorKind(err)}`);
        return;
      }
      this.owed.delete(owed.gridId);
      this.quiet.delete(path);
      if (!landed) return;
      this.filed(owed, landed.name);
    });
  }

  private filed(owed: Owed, name: string): void {
    log.info(`recordings: filed ${owed.workspace}/${name}`);
    try {
      this.opts.onFiled?.(owed.workspace);
    } catch {
      // a listener's failure is its own
    }
  }

  private forget(owed: Owed): void {
    this.owed.delete(owed.gridId);
    try {
      this.store.deleteNote(owed.workspace, owed.gridId);
    } catch (err) {
      log.warn(`recordings: could not delete a note for ${owed.workspace}: ${errorKind(err)}`);
    }
  }

  private markEnded(owed: Owed, nowSeconds: number): void {
    owed.ended = Math.floor(nowSeconds * 1000);
    try {
      // Over what the note says now (another server may be filing it); a note gone is not written again.
      const note = this.store.readNote(owed.workspace, owed.gridId);
      if (note) this.store.writeNote(owed.workspace, owed.gridId, { ...note, ended: owed.ended });
    } catch (err) {
      log.warn(`recordings: could not update a note for ${owed.workspace}: ${errorKind(err)}`);
    }
  }

  /** Seconds the file has kept its size and mtime; the first sight of a state starts the clock. */
  private async quietFor(path: string, now: number): Promise<number> {
    const st = await new Promise<import("node:fs").Stats | null>((resolve) =>
      stat(path, (err, s) => resolve(err ? null : s)),
    );
    if (!st) return 0;
    const seen = this.quiet.get(path);
    if (!seen || seen.size !== st.size || seen.mtime !== st.mtimeMs) {
      this.quiet.set(path, { size: st.size, mtime: st.mtimeMs, since: now });
      return 0;
    }
    return now - seen.since;
  }
}

function noteOf(owed: Owed): Note {
  return { opened: owed.opened, ended: owed.ended, browser: owed.browser };
}

/** Every file under the inbox, at any depth, but dot names and names still being copied. */
export async function inboxFiles(inbox: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith(".")) continue;
      const path = join(dir, e.name);
      if (e.isDirectory()) await walk(path);
      else if (e.isFile() && !PARTIAL_SUFFIXES.some((s) => e.name.endsWith(s))) out.push(path);
    }
  };
  await walk(inbox);
  return out;
}
