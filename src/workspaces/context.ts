// What a handler is handed for one call (or one step of a runner's call): its workspace, the
// ports, its browser, the lifecycle and the step runner. What it did beyond its result it returns
// (actions/outcome.ts).

import type { AnyAction, LiveBrowser } from "../actions/action.ts";
import { type Happened, split } from "../actions/outcome.ts";
import type { ActionContext, ActionServices } from "../actions/ports.ts";
import type { Held } from "./browsers.ts";
import type { Lifecycle, ManagerHooks, Turn } from "./lifecycle.ts";
import { type Call, type Runner, stepsOf } from "./runner.ts";

type AnyRecord = Record<string, unknown>;

export interface CallOptions {
  signal?: AbortSignal;
  progress?: (progress: number, total: number | undefined, message: string) => void;
}

/** What a context is made from: the manager's parts. */
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
    signal: opts.signal ?? new AbortController().signal,
  };
}

/** Runs the handler; on a browser opened with capture=true, wrapped by the capture hook. */
export async function attempt(
  capture: ManagerHooks["capture"],
  browser: LiveBrowser,
  action: AnyAction,
  input: unknown,
  ctx: ActionContext,
): Promise<{ result: AnyRecord; happened: Happened }> {
  const wrap = browser.settings.capture === true ? capture : undefined;
  if (!wrap) return split(await action.handler(ctx, input));
  let out: { result: AnyRecord; happened: Happened } = { result: {}, happened: {} };
  const page = await wrap(browser, async () => {
    out = split(await action.handler(ctx, input));
  });
  return page ? { ...out, result: { ...out.result, page } } : out;
}

/** A page call on `browser`, in `turn`. */
export function track(browser: Held, hold: (b: Held) => Held, turn: Turn): Call {
  return { browser, reopened: false, hold, turn };
}
