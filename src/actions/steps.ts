// The contract for an action that calls other actions inside its own call (a flow run).

import type { SiteDataReport } from "../store/record.ts";
import type { AnyAction, LiveBrowser } from "./action.ts";
import type { CallEnd } from "./call.ts";
import type { Change, Effects } from "./effects.ts";

type AnyRecord = Record<string, unknown>;

/**
 * What one step of a runner's call did: its result, and its effects (not applied; its later work
 * done); or that its browser was gone (the Grid reaped it): the runner writes what it reached, and
 * runs the step again, on a browser reopened for it (once a call).
 */
export type Stepped = { result: AnyRecord; effects: Effects } | { gone: true };

/**
 * For an action that calls other actions' handlers inside its own call (a flow run): the call
 * holds the workspace's lock and its browser throughout, and settles once at its end.
 */
export interface Steps {
  /** The browser the call acts on now: a reopen, or an open or end step, replaces it. */
  readonly browser: LiveBrowser | null;
  /**
   * Calls `action`'s handler with a context of its own (this call's browser; what it did beyond its
   * result handed back, not applied; nothing settled). A page step whose browser the Grid reaped
   * answers `gone` (once a call); run again, it runs on a reopened browser.
   */
  run(action: AnyAction, input: unknown, opts: { signal: AbortSignal }): Promise<Stepped>;
  /**
   * Writes these pages (in order) and changes now, in one settle write; answers the reopen report
   * it handed over, and `result` (the runner's report so far) with the changes' fills applied.
   */
  touch(
    urls: ReadonlyArray<string | null>,
    changes?: Change[],
    result?: AnyRecord,
  ): Promise<{ report: SiteDataReport | null; result: AnyRecord }>;
  /**
   * A step's record, as a call's is made (its timeline entry, with the screen of the page it left,
   * on this call's browser): how it ended, where it left the page as the run saw it.
   */
  record(end: Omit<CallEnd, "surface" | "workspace" | "browser">): Promise<void>;
}
