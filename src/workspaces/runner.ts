// The step runner of a page call whose action calls others inside it (a flow run): each step's
// handler gets a context of its own on the call's browser, its bookkeeping collected for the call's
// one settle; a step whose browser the Grid reaped is retried once on a reopened one.
import type { ActionContext } from "../actions/ports.ts";
import type { AnyAction, LiveBrowser } from "../actions/shape.ts";
import { isNoSuchSession } from "../grid/webdriver-errors.ts";
import { log } from "../log.ts";
import type { SiteDataReport } from "../store/record.ts";
import type { Held } from "./browsers.ts";
import type { Lifecycle } from "./lifecycle.ts";
import type { CallState } from "./settle.ts";
import type { StepOutcome, Steps } from "./steps.ts";

type AnyRecord = Record<string, unknown>;

/** A page call in flight: the browser it holds now, and what it asked its settle to record. */
export interface Call {
  browser: Held | null;
  reopened: boolean;
  state: CallState;
  /** Keeps a browser the call came to hold, so it is given back when the call ends. */
  hold: (b: Held) => Held;
}

/** What the runner needs of the manager. */
export interface Runner {
  lifecycle: Pick<Lifecycle, "resolve" | "reopen" | "held">;
  /** A context of the step's own (no settle of its own). */
  context(
    workspace: string,
    browser: LiveBrowser | null,
    opts: { signal: AbortSignal },
  ): { ctx: ActionContext; state: CallState };
  settle(
    workspace: string,
    raw: AnyRecord,
    browser: string,
    reshapes: boolean,
    state: CallState,
  ): Promise<AnyRecord>;
}

export function stepsOf(d: Runner, workspace: string, call: Call): Steps {
  return {
    get browser() {
      return call.browser;
    },
    run: (action, input, opts) => step(d, workspace, call, action, input, opts),
    touch: async (urls, changes = [], raw = {}) => {
      const { site_data, ...result } = await d.settle(workspace, raw, call.browser?.id ?? "", false, {
        landed: null,
        changes: [...changes],
        pages: [...urls],
      });
      return { report: (site_data as SiteDataReport | undefined) ?? null, result };
    },
    land: (urls) => {
      call.state.pages = [...urls];
    },
  };
}

async function step(
  d: Runner,
  workspace: string,
  call: Call,
  action: AnyAction,
  input: unknown,
  opts: { signal: AbortSignal; beforeReopen?: () => Promise<void> },
): Promise<StepOutcome> {
  const once = async (): Promise<StepOutcome> => {
    if (action.browser === "page" && !call.browser)
      call.browser = call.hold(await d.lifecycle.resolve(workspace));
    const c = d.context(workspace, action.browser === "page" ? call.browser : null, {
      signal: opts.signal,
    });
    try {
      const result = (await action.handler(c.ctx, input)) as AnyRecord;
      return { result, landed: c.state.landed, changes: c.state.changes };
    } finally {
      // An open or end step replaced the record's browser: the rest of the call uses what it holds.
      if (action.browser === "open" || action.browser === "end") {
        const now = await d.lifecycle.held(workspace);
        call.browser = now && call.hold(now);
      }
    }
  };
  try {
    return await once();
  } catch (err) {
    if (action.browser !== "page" || !isNoSuchSession(err) || call.reopened || !call.browser) throw err;
    call.reopened = true;
    log.info(`workspace ${workspace}: its browser was gone mid-call; reopening it`);
    await opts.beforeReopen?.();
    call.browser = call.hold(await d.lifecycle.reopen(workspace, call.browser.id));
    return await once();
  }
}
