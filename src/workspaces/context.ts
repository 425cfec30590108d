// What a handler is handed for one call (or one step of a runner's call): its workspace, the
// ports, its browser, the lifecycle, the step runner, and where its bookkeeping is collected.
import type { ActionContext, ActionServices } from "../actions/ports.ts";
import type { AnyAction, LiveBrowser } from "../actions/shape.ts";
import type { LeaseFence } from "../store/types.ts";
import type { Held } from "./browsers.ts";
import type { Lifecycle, ManagerHooks } from "./lifecycle.ts";
import { type Call, type Runner, stepsOf } from "./runner.ts";
import type { CallState } from "./settle.ts";

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
  fenceOf(workspace: string): { fence?: LeaseFence };
}

export function contextOf(
  d: Contexts,
  workspace: string,
  browser: LiveBrowser | null,
  opts: CallOptions,
  call: Call | null = null,
): { ctx: ActionContext; state: CallState } {
  const state: CallState = call?.state ?? { landed: undefined, changes: [] };
  const ctx: ActionContext = {
    workspace,
    services: d.services,
    get browser(): LiveBrowser {
      if (!browser) throw new Error("this action has no browser");
      return browser;
    },
    lifecycle: {
      open: (req) => d.lifecycle.open(workspace, req),
      end: () => d.lifecycle.end(workspace, d.fenceOf(workspace)),
    },
    steps: () => {
      if (!call) throw new Error("steps() takes the context of a page action's call");
      return stepsOf(d.runner, workspace, call);
    },
    land: (url) => {
      state.landed = url;
    },
    change: (fn) => {
      state.changes.push(fn);
    },
    progress: (p, total, message) => opts.progress?.(p, total, message),
    signal: opts.signal ?? new AbortController().signal,
  };
  return { ctx, state };
}

/** Runs the handler; on a browser opened with capture=true, wrapped by the capture hook. */
export async function attempt(
  capture: ManagerHooks["capture"],
  browser: LiveBrowser,
  action: AnyAction,
  input: unknown,
  ctx: ActionContext,
): Promise<AnyRecord> {
  const wrap = browser.settings.capture === true ? capture : undefined;
  if (!wrap) return (await action.handler(ctx, input)) as AnyRecord;
  let result: AnyRecord = {};
  const page = await wrap(browser, async () => {
    result = (await action.handler(ctx, input)) as AnyRecord;
  });
  return page ? { ...result, page } : result;
}

/** A page call on `browser`, its bookkeeping still empty. */
export function track(browser: Held, hold: (b: Held) => Held): Call {
  return { browser, reopened: false, state: { landed: undefined, changes: [] }, hold };
}
