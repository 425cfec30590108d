// Ending browsers, and browsers nobody owns: a browser is quit by classic WebDriver, saying what the
// Grid answered. Every browser a server opens carries its group's owner tag (the Grid lists it in
// /status), so one whose workspace record no longer names it (the record expired or was lost, or an
// end the Grid never got) is found and ended, at the next call that opens a browser for that
// workspace (before it opens one) and by a periodic sweep. A browser whose workspace a call holds is
// left alone: that call may be opening it, and its record write may be in flight.
import { messageOf } from "../errors.ts";
import type { HeldConnections } from "../grid/held-pool.ts";
import type { EndAnswer, Grid } from "../grid/webdriver.ts";
import type { TaggedBrowser } from "../grid/webdriver-status.ts";
import type { Log } from "../log.ts";
import type { RecordStore } from "../store/types.ts";
import type { Leases } from "./lease.ts";

/** How long a look at the Grid's /status may take before the open goes on without it. */
const LOOK_MS = 5_000;
/** How long ending a browser may take before the call answers (the Grid goes on quitting it). */
const END_WAIT_MS = 5_000;

export interface QuitNeeds {
  grid: Pick<Grid, "end">;
  connections: Pick<HeldConnections, "drop">;
  /** Told of each browser ended (its recording's note). */
  ended: (id: string) => void;
  log: Pick<Log, "warn">;
}

/** What the Grid answered to a quit (it ended the browser, or it was gone already), or why it did not. */
export type Quit = { answer: EndAnswer } | { why: string };

/**
 * Quits a browser by classic WebDriver (its BiDi channel may be gone), waiting at most `waitMs` (the
 * Grid goes on after): what the Grid answered, or why there was no answer.
 */
export async function quitBrowser(d: QuitNeeds, id: string, waitMs = END_WAIT_MS): Promise<Quit> {
  d.connections.drop(id);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<Quit>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          why: `the Grid did not confirm the end within ${waitMs / 1000} s: if it never does, the server ends the browser later (grid.orphan_sweep)`,
        }),
      waitMs,
    );
  });
  try {
    const ending = d.grid.end(id).then(
      (answer): Quit => ({ answer }),
      (err: unknown): Quit => ({ why: messageOf(err) }),
    );
    const out = await Promise.race([ending, late]);
    if ("why" in out) d.log.warn(`ending a browser: ${out.why}`);
    return out;
  } finally {
    clearTimeout(timer);
    d.ended(id);
  }
}

export interface OrphanNeeds {
  grid: Pick<Grid, "tagged">;
  /** Ends a browser (its connection dropped, its recording told): null once the Grid confirmed, else why not. */
  quit: (id: string) => Promise<Quit>;
  log: Pick<Log, "info" | "warn">;
}

/** Ends `browsers` side by side; how many the Grid ended (not counting those gone already). */
async function endAll(d: OrphanNeeds, browsers: TaggedBrowser[]): Promise<number> {
  const answers = await Promise.all(browsers.map((b) => d.quit(b.id)));
  return answers.filter((q) => "answer" in q && q.answer === "ended").length;
}

const plural = (n: number) => `${n} browser${n === 1 ? "" : "s"}`;

/**
 * In a call's turn (no other call can be opening a browser for `workspace`), before it opens one or
 * when it ends one the record does not name: ends every browser tagged for it but `keep`; how many
 * the Grid ended. A Grid that does not answer /status is not waited for: the call goes on.
 */
export async function endOrphansOf(
  d: OrphanNeeds,
  workspace: string,
  keep: readonly string[],
): Promise<number> {
  const tagged = await d.grid.tagged(LOOK_MS);
  const orphans = (tagged ?? []).filter((b) => b.workspace === workspace && !keep.includes(b.id));
  if (orphans.length === 0) return 0;
  const ended = await endAll(d, orphans);
  d.log.info(
    `workspace ${workspace}: ended ${plural(ended)} of ${orphans.length} its record did not name (orphans)`,
  );
  return ended;
}

export interface SweepNeeds extends OrphanNeeds {
  store: Pick<RecordStore, "get">;
  leases: Pick<Leases, "tryTake">;
}

/** The periodic sweep: every `seconds` (0: never), browsers tagged by this group that no record names. */
export class OrphanSweep {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<number> | null = null;

  constructor(private readonly d: SweepNeeds) {}

  start(seconds: number): void {
    if (seconds <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.sweep(), seconds * 1000);
    this.timer.unref?.();
  }

  /** Stops the timer and waits for a sweep under way. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => 0);
  }

  /** One sweep (one at a time): how many orphans the Grid confirmed ended. Never throws. */
  sweep(): Promise<number> {
    this.running ??= this.once()
      .catch((err) => {
        this.d.log.warn(`the orphan sweep failed: ${messageOf(err)}`);
        return 0;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async once(): Promise<number> {
    const tagged = await this.d.grid.tagged();
    if (!tagged?.length) return 0;
    const byWorkspace = new Map<string, TaggedBrowser[]>();
    for (const b of tagged) byWorkspace.set(b.workspace, [...(byWorkspace.get(b.workspace) ?? []), b]);
    let ended = 0;
    for (const [workspace, browsers] of byWorkspace) {
      const orphans = await this.unowned(workspace, browsers);
      if (orphans.length === 0) continue;
      const n = await endAll(this.d, orphans);
      ended += n;
      this.d.log.info(`workspace ${workspace}: the orphan sweep ended ${plural(n)} no record named`);
    }
    return ended;
  }

  /**
   * Which of `browsers` no record names, read while no call holds the workspace: a browser listed
   * before that moment was opened by a call that has bound it (the record names it) or will quit it
   * (its write was refused). A workspace a call holds is left for the next sweep.
   */
  private async unowned(workspace: string, browsers: TaggedBrowser[]): Promise<TaggedBrowser[]> {
    const lease = await this.d.leases.tryTake(workspace);
    if (!lease) return [];
    try {
      const owner = (await this.d.store.get(workspace))?.session_id ?? "";
      return browsers.filter((b) => b.id !== owner);
    } finally {
      await lease.release();
    }
  }
}
