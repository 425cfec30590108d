// What a handler is handed for one call (or one step of a runner's call): its workspace, the ports,
// its browser, the lifecycle and the step runner. The step runner is for a page call whose action
// calls others inside it (a flow run): each step's handler gets a context of its own on the call's
// browser, and its effects go back to the runner's handler; a step whose browser the Grid reaped is
// retried once on a reopened one.

import type { AnyAction, Asking, LiveBrowser } from "../actions/action.ts";
import type { CallEnd } from "../actions/call.ts";
import { Effects } from "../actions/effects.ts";
import type { ActionContext, ActionServices } from "../actions/ports.ts";
import type { Stepped, Steps } from "../actions/steps.ts";
import { messageOf } from "../errors.ts";
import type { SiteDataReport } from "../store/record.ts";
import type { Held } from "./browsers.ts";
import type { Lifecycle, Turn } from "./lifecycle.ts";

type AnyRecord = Record<string, unknown>;

/** A page call in flight: the browser it holds now, and what it did besides its result. */
export interface Call {
  browser: Held | null;
  reopened: boolean;
  /** The call's fence and stop signal, for the browsers its steps open. */
  turn: Turn;
  /** Keeps a browser the call came to hold, so it is given back when the call ends. */
  hold: (b: Held) => Held;
  /** Its handler's effects; their later work runs on after the answer, in the turn. */
  effects: Effects;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Where the handler writes what it did (none: a new one nobody applies; its later work runs on its own). */
  effects?: Effects;
  progress?: (progress: number, total: number | undefined, message: string) => void;
  /** How the client's user is asked, when the client can ask them. */
  asking?: Asking;
  /** This server's origin as the caller reached it. */
  origin?: string;
}

/** What a context is made from: the pipeline's parts. */
export interface Contexts {
  services: ActionServices;
  lifecycle: Pick<Lifecycle, "open" | "end">;
  runner: Runner;
}

export function contextOf(
  d: Contexts,
  workspace: string,
  turn: Turn,
  browser: LiveBrowser | null,
  opts: CallOptions,
  call: Call | null = null,
): ActionContext {
  return {
    workspace,
    services: d.services,
    get browser(): LiveBrowser {
      if (!browser) throw new Error("this action has no browser");
      return browser;
    },
    lifecycle: {
      open: (req) => d.lifecycle.open(workspace, req, turn),
      end: () => d.lifecycle.end(workspace, { fence: turn.fence }),
    },
    steps: () => {
      if (!call) throw new Error("steps() takes the context of a page action's call");
      return stepsOf(d.runner, workspace, call);
    },
    progress: (p, total, message) => opts.progress?.(p, total, message),
    ...(opts.asking && { asking: opts.asking }),
    ...(opts.origin && { origin: opts.origin }),
    signal: opts.signal ?? new AbortController().signal,
    effects: opts.effects ?? effectsOf(d.services, workspace),
  };
}

/** A call's (or a step's) effects, empty: its later work's failures go to the debug log. */
export function effectsOf(services: Pick<ActionServices, "log">, workspace: string): Effects {
  return new Effects((err) =>
    services.log.debug(`workspace ${workspace}: work after a call failed: ${messageOf(err)}`),
  );
}

/** What the runner needs of the pipeline. */
export interface Runner {
  services: Pick<ActionServices, "log">;
  lifecycle: Pick<Lifecycle, "held">;
  /** A context of the step's own, with no browser (an open, end or browserless step). */
  context(workspace: string, turn: Turn, opts: { signal: AbortSignal; effects: Effects }): ActionContext;
  /** A page step: the call's browser (reopened once a call when the Grid reaped it) and the handler. */
  act(
    workspace: string,
    call: Call,
    action: AnyAction,
    input: unknown,
    opts: { signal: AbortSignal; beforeReopen?: () => Promise<void>; effects: Effects },
  ): Promise<AnyRecord>;
  settle(
    workspace: string,
    raw: AnyRecord,
    browser: string,
    reshapes: boolean,
    effects: Effects,
    turn: Turn,
  ): Promise<AnyRecord>;
  /** The record stage a call ends with (the timeline's screen and entry). */
  record(end: CallEnd): Promise<void>;
}

export function stepsOf(d: Runner, workspace: string, call: Call): Steps {
  return {
    get browser() {
      return call.browser;
    },
    run: (action, input, opts) => step(d, workspace, call, action, input, opts),
    touch: async (urls, changes = [], raw = {}) => {
      const effects = new Effects();
      effects.land(null);
      effects.pages = [...urls];
      for (const change of changes) effects.change(change);
      const { site_data, ...result } = await d.settle(
        workspace,
        raw,
        call.browser?.id ?? "",
        false,
        effects,
        call.turn,
      );
      return { report: (site_data as SiteDataReport | undefined) ?? null, result };
    },
    record: (end) => d.record({ ...end, surface: "flow", workspace, browser: call.browser }),
  };
}

async function step(
  d: Runner,
  workspace: string,
  call: Call,
  action: AnyAction,
  input: unknown,
  opts: { signal: AbortSignal; beforeReopen?: () => Promise<void> },
): Promise<Stepped> {
  // A page step goes through the stages a call's handler does (the browser, the handler); its
  // later work is done before the next step.
  const effects = effectsOf(d.services, workspace);
  try {
    const result =
      action.browser === "page"
        ? await d.act(workspace, call, action, input, { ...opts, effects })
        : await browserless(d, workspace, call, action, input, opts.signal, effects);
    return { result, effects };
  } finally {
    await effects.drained();
  }
}

/** An open, end or browserless step: an open or end replaces the browser the rest of the call uses. */
async function browserless(
  d: Runner,
  workspace: string,
  call: Call,
  action: AnyAction,
  input: unknown,
  signal: AbortSignal,
  effects: Effects,
): Promise<AnyRecord> {
  try {
    return await action.handler(d.context(workspace, call.turn, { signal, effects }), input);
  } finally {
    if (action.browser === "open" || action.browser === "end") {
      const now = await d.lifecycle.held(workspace);
      call.browser = now && call.hold(now);
    }
  }
}
