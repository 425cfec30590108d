// The step runner of a page call whose action calls others inside it (a flow run): each step's
// handler gets a context of its own on the call's browser, and what it did beyond its result goes
// back to the runner's handler; a step whose browser the Grid reaped is retried once on a reopened one.

import type { AnyAction, LiveBrowser } from "../actions/action.ts";
import { split } from "../actions/outcome.ts";
import type { ActionContext } from "../actions/ports.ts";
import { isNoSuchSession } from "../grid/webdriver-errors.ts";
import { log } from "../log.ts";
import type { SiteDataReport } from "../store/record.ts";
import type { Held } from "./browsers.ts";
import type { Lifecycle, Turn } from "./lifecycle.ts";
import type { CallState } from "./settle.ts";
import type { StepOutcome, Steps } from "./steps.ts";

type AnyRecord = Record<string, unknown>;

/** A page call in flight: the browser it holds now. */
export interface Call {
  browser: Held | null;
  reopened: boolean;
  /** The call's fence and stop signal, for the browsers its steps open. */
  turn: Turn;
  /** Keeps a browser the call came to hold, so it is given back when the call ends. */
  hold: (b: Held) => Held;
}

/** What the runner needs of the manager. */
export interface Runner {
  lifecycle: Pick<Lifecycle, "resolve" | "reopen" | "held">;
  /** A context of the step's own (no settle of its own). */
  context(
    workspace: string,
    turn: Turn,
    browser: LiveBrowser | null,
    opts: { signal: AbortSignal },
  ): ActionContext;
  settle(
    workspace: string,
    raw: AnyRecord,
    browser: string,
    reshapes: boolean,
    state: CallState,
    turn: Turn,
  ): Promise<AnyRecord>;
}

export function stepsOf(d: Runner, workspace: string, call: Call): Steps {
  return {
    get browser() {
      return call.browser;
    },
    run: (action, input, opts) => step(d, workspace, call, action, input, opts),
    touch: async (urls, changes = [], raw = {}) => {
      const { site_data, ...result } = await d.settle(
        workspace,
        raw,
        call.browser?.id ?? "",
        false,
        {
          landed: null,
          changes: [...changes],
          pages: [...urls],
        },
        call.turn,
      );
      return { report: (site_data as SiteDataReport | undefined) ?? null, result };
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
      call.browser = call.hold(await d.lifecycle.resolve(workspace, call.turn));
    const c = d.context(workspace, call.turn, action.browser === "page" ? call.browser : null, {
      signal: opts.signal,
    });
    try {
      const { result, happened } = split(await action.handler(c, input));
      return { result, landed: happened.landed, changes: [...(happened.changes ?? [])] };
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
    call.browser = call.hold(await d.lifecycle.reopen(workspace, call.browser.id, call.turn));
    return await once();
  }
}
