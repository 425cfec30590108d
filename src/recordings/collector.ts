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
import { basename } from "node:path";
import { errorKind } from "../kit/error-kind.ts";
import { validGridId } from "../kit/names.ts";
import { Log } from "../log.ts";
import { InboxWatcher, inboxFiles, QuietFiles } from "./inbox.ts";
import { isComplete } from "./mp4.ts";
import {
  type Claims,
  type CollectorOptions,
  type CollectorStore,
  hhmm,
  nameFor,
  noteOf,
  type Owed,
  SOLO,
} from "./owed.ts";

const TICK_S = 30;
// While a recording's file is in the inbox but not yet complete, it is looked at this often: its
// last bytes may land without an event the watcher sees (an event seen mid-write, a network mount).
const GROWING_S = 2;
const IDLE_AFTER_S = 60;

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
  private readonly quiet = new QuietFiles();
  private readonly watch: InboxWatcher;
  private loop: Promise<void> | null = null;
  /** The last sweep saw a recording's file that is not complete yet. */
  private growing = false;
  private closed = true;

  private readonly log: Log;

  constructor(opts: CollectorOptions) {
    this.opts = opts;
    this.log = opts.log ?? new Log();
    this.store = opts.store;
    this.inbox = opts.inbox;
    this.polling = opts.polling;
    this.clock = opts.clock ?? (() => Date.now() / 1000);
    this.tick = opts.tick ?? TICK_S;
    this.idleAfter = opts.idleAfter ?? IDLE_AFTER_S;
    this.claims = opts.claims ?? SOLO;
    this.watch = new InboxWatcher(opts.inbox, opts.polling, opts.pollMs);
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
      this.log.warn(`recording for ${workspace} cannot be filed: ${kind}`);
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
    if (resumed) this.log.info(`recordings: ${resumed} owed from before the restart`);
    this.rescanner ??= setInterval(() => {
      try {
        const more = this.rescan();
        if (more) this.log.debug(`recordings: ${more} owed noted by another server`);
      } catch {
        // the next tick looks again
      }
    }, this.tick * 1000);
    this.rescanner.unref?.();
    this.ensure();
  }

  /** Owes what the notes say and this server does not yet; forgets what another server filed. Returns how many it took on. */
  private rescan(): number {
    const notes = this.store.notes((w) =>
      this.log.warn(`ignoring a recording note of ${w}: it cannot be read`),
    );
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
    this.watch.interrupt();
    await this.loop;
    await this.watch.close();
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
        this.watch.begin();
        await this.sweep();
        if (!this.owed.size || this.closed) break;
        if (!this.watch.opened) await this.watch.open();
        await this.watch.next(this.growing ? Math.min(this.tick, GROWING_S) : this.tick, this.closed);
      }
    } catch (err) {
      crashed = true;
      this.log.warn("recordings: the collector stopped; it resumes on the next recording");
      this.log.debug(`recordings: the collector stopped on ${errorKind(err)}`);
    } finally {
      await this.watch.close();
      this.loop = null;
    }
    // Owed while the loop was ending: go round again (a crash waits for the next expect).
    if (!crashed) this.ensure();
  }

  /** One look: file what is finished, look up what may have ended, give up on what never came. */
  async sweep(): Promise<void> {
    this.growing = false;
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
        } else if ((await this.quiet.quietFor(match, now)) < this.idleAfter || (await alive(owed.gridId))) {
          this.growing = true;
        } else {
          this.log.info(
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
          this.log.warn(
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
        this.log.warn(`recordings: could not file a recording for ${owed.workspace}: ${errorKind(err)}`);
        return;
      }
      this.owed.delete(owed.gridId);
      this.quiet.delete(path);
      if (!landed) return;
      this.filed(owed, landed.name);
    });
  }

  private filed(owed: Owed, name: string): void {
    this.log.info(`recordings: filed ${owed.workspace}/${name}`);
    this.opts.events?.changed(owed.workspace);
  }

  private forget(owed: Owed): void {
    this.owed.delete(owed.gridId);
    try {
      this.store.deleteNote(owed.workspace, owed.gridId);
    } catch (err) {
      this.log.warn(`recordings: could not delete a note for ${owed.workspace}: ${errorKind(err)}`);
    }
  }

  private markEnded(owed: Owed, nowSeconds: number): void {
    owed.ended = Math.floor(nowSeconds * 1000);
    try {
      // Over what the note says now (another server may be filing it); a note gone is not written again.
      const note = this.store.readNote(owed.workspace, owed.gridId);
      if (note) this.store.writeNote(owed.workspace, owed.gridId, { ...note, ended: owed.ended });
    } catch (err) {
      this.log.warn(`recordings: could not update a note for ${owed.workspace}: ${errorKind(err)}`);
    }
  }
}
