// The browser and handler stage of a call, and of each step of a flow run inside one: the record's
// browser, taken for the call (a reaped one reopened once a call, one whose channel a page broke ended),
// and the handler, run with a context made here; for a whole call, then its effects applied in the one
// settle write (its rules settle.ts's). A flow's steps (`ctx.steps()`) go through this stage and the
// settle write themselves, inside the run's turn: they never enter the pipeline again.
import type { AnyAction, Asking, LiveBrowser } from "../actions/action.ts";
import type { Subscriber } from "../actions/call.ts";
import { Effects } from "../actions/effects.ts";
import type { ActionContext, ActionServices } from "../actions/ports.ts";
import type { Stepped, Steps } from "../actions/steps.ts";
import { messageOf } from "../errors.ts";
import type { HeldConnections } from "../grid/held-pool.ts";
import type { Grid } from "../grid/webdriver.ts";
import { isNoSuchSession } from "../grid/webdriver-errors.ts";
import type { SiteDataReport, WorkspaceRecord } from "../store/record.ts";
import type { RecordStore } from "../store/types.ts";
import type { Browsers, CallBrowser } from "./browsers.ts";
import type { Lifecycle, ManagerHooks, Turn } from "./lifecycle.ts";
import { landingOf, picture, settledBy, type Told } from "./settle.ts";

type AnyRecord = Record<string, unknown>;

/** A page call in flight: the browser it has now, and what it did besides its result. */
export interface Call {
  browser: CallBrowser | null;
  /** The record as the lease's take read it, for the call's first browser (then gone: stale). */
  known?: WorkspaceRecord | null;
  reopened: boolean;
  /** A browser a step found gone: the step's next run reopens it (after the run wrote what it reached). */
  gone?: string;
  /** The call's fence and stop signal, for the browsers its steps open. */
  turn: Turn;
  /** The browsers the call took, given back as it ends; the last is the one it leaves. */
  taken: CallBrowser[];
  /** Its handler's effects; their later work runs on after the answer, in the turn. */
  effects: Effects;
  /** Forgets the pages elsewhere its settle write recorded, as the call gives its browser back. */
  recorded?: () => void;
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

/** How a call (whole) or one step of a flow run is run: its effects go where the caller reads them. */
type Step = CallOptions & { effects: Effects; whole?: boolean };

/** A step's browser was gone: the step answers so, and is run again on the browser reopened for it. */
class Gone extends Error {}

/** What the stage needs: the pipeline's parts (none of them the pipeline). */
export interface RunnerNeeds {
  services: ActionServices;
  lifecycle: Lifecycle;
  browsers: Pick<Browsers, "forCall">;
  connections: Pick<HeldConnections, "dead" | "peek">;
  grid: Pick<Grid, "alive">;
  store: RecordStore;
  now: () => number;
  hooks: Pick<ManagerHooks, "capture">;
  /** Who hears each call (the pipeline's list): a flow's steps are heard as they end. */
  subscribers: readonly Subscriber[];
}

/** Keeps `b` as a browser the call took, given back when the call ends. */
function keep(call: Call, b: CallBrowser): CallBrowser {
  call.taken.push(b);
  return b;
}

export function contextOf(
  d: RunnerNeeds,
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
      return stepsOf(d, workspace, call);
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

/**
 * The browser and the handler, for a call or one step of a flow run: the record's browser, taken for
 * the call; a browser the Grid reaped is reopened (once a call) and the handler runs again on it (a
 * step's, when the step is run again: `Gone`); one whose channel a page broke, still on the Grid, is
 * ended and the call says so.
 * A whole call's handler is wrapped by the capture hook on a browser opened with capture=true, and
 * may run steps.
 */
export async function act(
  d: RunnerNeeds,
  workspace: string,
  call: Call,
  action: AnyAction,
  input: unknown,
  opts: Step,
): Promise<AnyRecord> {
  const result = await acted(d, workspace, call, action, input, opts);
  return opts.whole ? await apply(d, workspace, call, action, result) : result;
}

/**
 * A whole call's effects, applied once, in the one settle write, for the browser the call has now
 * (its steps may have replaced it): where it left the agent, and the pages loaded elsewhere (a look;
 * forgotten as the call gives its browser back).
 */
async function apply(
  d: RunnerNeeds,
  workspace: string,
  call: Call,
  action: AnyAction,
  result: AnyRecord,
): Promise<AnyRecord> {
  const { effects } = call;
  const now = call.browser;
  const where = now?.where();
  const pending = now && where ? d.connections.peek(now.id)?.pages.pending(where.tab) : undefined;
  if (now && where) {
    effects.focus = where;
    effects.elsewhere = pending?.urls ?? [];
  }
  const settled = await settle(d, workspace, call, result, effects, action.reshapes === true);
  // Forgotten only once written: a write that failed leaves them for the next call's.
  call.recorded = pending?.recorded;
  return settled;
}

/**
 * Finishes a page call: one fenced write for history, TTL, reopen report, window, focus and the
 * call's effects (settle.ts `settledBy`); the result, filled in and redacted: the one door a page
 * call's result leaves by.
 */
export async function settle(
  d: Pick<RunnerNeeds, "store" | "now"> & { services: Pick<ActionServices, "redactor"> },
  workspace: string,
  call: Pick<Call, "browser" | "turn">,
  raw: AnyRecord,
  effects: Effects,
  reshapes = false,
): Promise<AnyRecord> {
  const { redactor } = d.services;
  // The last line of defence for secrets: whatever an action returns or lands on, a page that
  // carries a secret value is never recorded and the value never reaches the caller. One pass of the
  // redactor: the result and every page the write would record.
  const landed = landingOf(raw, effects);
  const { value: redacted, carrying } = redactor.leaving(
    raw,
    [landed, ...(effects.pages ?? []), ...effects.elsewhere],
    picture,
  );
  const safe = (url: string | null) => (url && carrying.has(url) ? null : url);
  const recorded = {
    landed: safe(landed),
    pages: effects.pages?.map(safe),
    elsewhere: effects.elsewhere.map(safe).filter((u): u is string => !!u),
  };
  let told: Told = { report: null, fills: [] };
  const clock = { now: d.now(), ttl: d.store.ttl };
  const fn = settledBy(call.browser?.id ?? "", recorded, effects, raw, reshapes, clock, (t) => {
    told = t;
  });
  await d.store.update(workspace, fn, { fence: call.turn.fence });
  // What the write learnt fills in the raw result, in order, which is then redacted whole (a fill
  // says what the write learnt: a receipt).
  const result = told.fills.length
    ? redactor.redactDeep(
        told.fills.reduce((r, fill) => fill(r), raw),
        picture,
      )
    : redacted;
  return told.report ? { ...result, site_data: told.report } : result;
}

/** The browser and the handler (once more on a reopened browser). */
async function acted(
  d: RunnerNeeds,
  workspace: string,
  call: Call,
  action: AnyAction,
  input: unknown,
  opts: Step,
): Promise<AnyRecord> {
  const { lifecycle, connections, grid } = d;
  if (call.gone) {
    const id = call.gone;
    call.gone = undefined;
    call.browser = keep(call, await reopened(d, workspace, id, call.turn));
  } else if (!call.browser) {
    const known = call.known;
    call.known = undefined;
    call.browser = keep(call, await first(d, workspace, call.turn, known));
  }
  const browser = call.browser;
  try {
    return await attempt(d, workspace, call, browser, action, input, opts);
  } catch (err) {
    const dead = [call.browser?.id, browser.id].find((id) => id && connections.dead(id));
    const gone = isNoSuchSession(err) || (dead && !(await grid.alive(dead).catch(() => true)));
    if (dead && !gone) throw await lifecycle.endDead(workspace, dead, call.turn);
    if (!gone || call.reopened) throw err;
    call.reopened = true;
    if (!opts.whole) {
      call.gone = browser.id;
      throw new Gone();
    }
    opts.effects.restart();
    call.browser = keep(call, await reopened(d, workspace, browser.id, call.turn));
    return await attempt(d, workspace, call, call.browser, action, input, opts);
  }
}

/**
 * The call's browser: the record's, ready to work (browsers.ts); the lifecycle's only when the record
 * names none, or one dead or wedged, or was not read (a step after one that ended the browser).
 */
async function first(
  d: RunnerNeeds,
  workspace: string,
  turn: Turn,
  known: WorkspaceRecord | null | undefined,
): Promise<CallBrowser> {
  if (known === undefined) return d.lifecycle.resolve(workspace, turn);
  const got = await d.browsers.forCall(known);
  return typeof got === "string" ? d.lifecycle.replace(workspace, got, known, turn) : got;
}

function reopened(d: RunnerNeeds, workspace: string, id: string, turn: Turn): Promise<CallBrowser> {
  d.services.log.info(`workspace ${workspace}: its browser was gone; reopening it`);
  return d.lifecycle.reopen(workspace, id, turn);
}

async function attempt(
  d: RunnerNeeds,
  workspace: string,
  call: Call,
  browser: CallBrowser,
  action: AnyAction,
  input: unknown,
  opts: Step,
): Promise<AnyRecord> {
  const ctx = contextOf(d, workspace, call.turn, browser, opts, opts.whole ? call : null);
  const wrap = opts.whole && browser.settings.capture === true ? d.hooks.capture : undefined;
  if (!wrap) return await action.handler(ctx, input);
  let out: AnyRecord = {};
  const page = await wrap(browser, async () => {
    out = await action.handler(ctx, input);
  });
  return page ? { ...out, page } : out;
}

function stepsOf(d: RunnerNeeds, workspace: string, call: Call): Steps {
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
      const { site_data, ...result } = await settle(d, workspace, call, raw, effects);
      return { report: (site_data as SiteDataReport | undefined) ?? null, result };
    },
    // The record stage a call ends with (the timeline's screen and entry), for the step.
    record: async (end) => {
      for (const s of d.subscribers)
        await s.ended?.({ ...end, surface: "flow", workspace, browser: call.browser });
    },
  };
}

async function step(
  d: RunnerNeeds,
  workspace: string,
  call: Call,
  action: AnyAction,
  input: unknown,
  opts: { signal: AbortSignal },
): Promise<Stepped> {
  // A page step goes through the stage a call's handler does (the browser, the handler); its later
  // work is done before the next step.
  const effects = effectsOf(d.services, workspace);
  try {
    const result =
      action.browser === "page"
        ? await act(d, workspace, call, action, input, { ...opts, effects })
        : await browserless(d, workspace, call, action, input, opts.signal, effects);
    return { result, effects };
  } catch (err) {
    if (err instanceof Gone) return { gone: true };
    throw err;
  } finally {
    await effects.drained();
  }
}

/** An open, end or browserless step: an open or end replaces the browser the rest of the call uses. */
async function browserless(
  d: RunnerNeeds,
  workspace: string,
  call: Call,
  action: AnyAction,
  input: unknown,
  signal: AbortSignal,
  effects: Effects,
): Promise<AnyRecord> {
  try {
    return await action.handler(contextOf(d, workspace, call.turn, null, { signal, effects }), input);
  } finally {
    if (action.browser === "open" || action.browser === "end") {
      const now = await d.lifecycle.current(workspace);
      call.browser = now && keep(call, now);
    }
  }
}
