// What one call did besides its result, in one object per call (Playwright MCP's `Response`): its
// handler writes into it as it goes (`ctx.effects`: where it landed, the pages, the record's
// changes, work left for after the answer) and answers its plain result; the pipeline applies it
// once, in the call's settle write, and redacts there, at one door.
import type { Focus, WorkspaceRecord } from "../store/record.ts";

type AnyRecord = Record<string, unknown>;

/** Fills in the call's result from what a change learnt in the write (a save's receipt). */
export type Fill = (result: AnyRecord) => AnyRecord;

/**
 * A pure change to the record, applied inside the settle write (which may run it more than once).
 * It may hand `fill` what the result should carry once the write is in: only the write's last run's
 * fills are applied, in order (a change the write did not apply leaves the result as it was).
 */
export type Change = (
  record: WorkspaceRecord,
  browser: string,
  fill: (f: Fill) => void,
) => WorkspaceRecord | null;

export class Effects {
  /** The page to record instead of the result's url; null records none (a frame, a closed tab, a dialog). */
  landed: string | null | undefined;
  /** Several pages to record, in order (a flow run's), instead of one landing. */
  pages: Array<string | null> | undefined;
  /** Top-level pages loaded in other tabs (a pop-up), oldest first: they join the history below its top. */
  elsewhere: string[] = [];
  /** The tab and frame the call leaves the agent in, for the record's focus (set by the pipeline). */
  focus: Omit<Focus, "browser"> | undefined;
  /** Pure changes to the record, for the same settle write. */
  readonly changes: Change[] = [];
  /** Work the answer need not wait for, each failure already handed to `failed`. */
  private readonly work: Promise<unknown>[] = [];

  constructor(private readonly failed: (err: unknown) => void = () => {}) {}

  /** Records `url` (null: none) instead of the result's url. */
  land(url: string | null): void {
    this.landed = url;
  }

  change(change: Change): void {
    this.changes.push(change);
  }

  /**
   * Work the answer need not wait for (a spare tab's closing): it runs on in the call's turn, so
   * the workspace's next call (and a runner's next step) waits for it. A failure is only logged.
   */
  later(work: Promise<unknown>): void {
    work.catch(this.failed);
    this.work.push(work);
  }

  /** A handler run again (on a reopened browser): what the last run said goes, its later work stays. */
  restart(): void {
    this.landed = undefined;
    this.pages = undefined;
    this.changes.length = 0;
  }

  /** The later work, done (failed or not). */
  async drained(): Promise<void> {
    await Promise.allSettled(this.work);
  }
}
