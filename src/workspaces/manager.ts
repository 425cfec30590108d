// The workspace manager: maps a workspace name to its browser, reopening a reaped one silently,
// runs each call under the workspace's lease (one call at a time across every server of a group),
// and settles every result in one record write (history, TTL, reopen report, window size, and any
// change the action asked for). The writes a call makes are fenced by its lease: a call that lost
// it writes nothing more, and a browser it opened is quit. Opening, reopening and ending a browser
// are lifecycle.ts's; the settle write settle.ts's; a runner's steps runner.ts's.

import type { AnyAction, LiveBrowser } from "../actions/action.ts";
import { split } from "../actions/outcome.ts";
import type { ActionContext, ActionServices } from "../actions/ports.ts";
import { LeaseLost, unavailable } from "../errors.ts";
import { SANDBOX } from "../grid/bidi.ts";
import { type HeldConnection, IDLE_MS } from "../grid/held.ts";
import { HeldConnections } from "../grid/held-pool.ts";
import { LIBRARY_PRELOAD } from "../grid/page-call.ts";
import type { Grid } from "../grid/webdriver.ts";
import { isNoSuchSession } from "../grid/webdriver-errors.ts";
import { log } from "../log.ts";
import { focused, recordUrl } from "../store/record.ts";
import type { RecordStore } from "../store/types.ts";
import { type AfterHook, afterCall, type Ended } from "./after.ts";
import { Browsers, type Held } from "./browsers.ts";
import { attempt, type CallOptions, type Contexts, contextOf, track } from "./context.ts";
import { type Describe, describe } from "./describe.ts";
import { Lifecycle, type ManagerHooks, type Turn } from "./lifecycle.ts";
import { Leases } from "./lock.ts";
import type { Call, Runner } from "./runner.ts";
import { type CallState, settle } from "./settle.ts";
import type { Steps } from "./steps.ts";

/** What the manager is built on: the store, the Grid, and what handlers are handed. */
export interface ManagerPorts<T> {
  store: RecordStore;
  grid: Grid;
  /** Epoch seconds. */
  now: () => number;
  /** The ports handlers are handed (ctx.services). */
  services: ActionServices;
  hooks?: ManagerHooks;
  lease?: LeaseSettings;
  /** Declared once: runs as each call ends (done or failed), still in its turn (the timeline's screen). */
  after?: AfterHook<T>;
}

type AnyRecord = Record<string, unknown>;

/** How long an admin's End waits for the Grid to quit the browser before answering (it goes on). */
const INTERRUPT_WAIT_MS = 2_000;

export interface LeaseSettings {
  /** Seconds a lease lives unless renewed (session.lease). */
  lease: number;
  /** Seconds a call waits for its workspace's lease before a 503 (grid.command_timeout). */
  wait: number;
  /** The URL schemes a page may be loaded from (navigate.allow_schemes). */
  schemes?: string[];
  /** Console and network entries kept per browser (logs.keep). */
  logs?: number;
}

export const busyMessage = (workspace: string, seconds: number) =>
  `another call holds workspace ${workspace} and did not end within ${seconds} s: retry once it has ended`;

export class WorkspaceManager<T = unknown> {
  /** One call at a time per workspace, across every server of the store. */
  readonly leases: Leases;
  private readonly waitSeconds: number;
  readonly hooks: ManagerHooks;
  /** Each workspace's call in flight on this server, to stop it (interrupt). */
  private readonly running = new Map<string, AbortController>();
  /** Each workspace's waiting (unleased) calls on this server, to cancel them (End, Forget). */
  private readonly waiting = new Map<string, Set<AbortController>>();
  /** One BiDi connection per live browser this server has touched. */
  readonly connections: HeldConnections;
  private readonly browsers: Browsers;
  /** Opening, reopening and ending the workspace's browser. */
  private readonly lifecycle: Lifecycle;
  /** What a runner's steps run through. */
  private readonly runner: Runner;
  private readonly contexts: Contexts;

  constructor(private readonly ports: ManagerPorts<T>) {
    const { store, grid, now, hooks = {}, lease = { lease: 15, wait: 60 } } = ports;
    this.hooks = hooks;
    this.connections = new HeldConnections(
      (id) => grid.bidi(id),
      IDLE_MS,
      { functionDeclaration: LIBRARY_PRELOAD, sandbox: SANDBOX },
      lease.logs,
      (id) => ports.services.redactor.forgetBrowser(id),
    );
    this.browsers = new Browsers(grid, this.connections, lease.schemes, (id) =>
      ports.services.redactor.typedJson(id),
    );
    this.lifecycle = new Lifecycle({
      store,
      grid,
      now,
      hooks,
      browsers: this.browsers,
    });
    this.runner = {
      lifecycle: this.lifecycle,
      context: (workspace, turn, browser, opts) => this.context(workspace, turn, browser, opts),
      settle: (...args) => this.settle(...args),
    };
    this.contexts = {
      services: ports.services,
      lifecycle: this.lifecycle,
      runner: this.runner,
    };
    this.leases = new Leases(store, lease.lease * 1000);
    this.waitSeconds = lease.wait;
  }

  /**
   * Runs one action for a workspace under the workspace's lease: one call at a time per workspace
   * on every server of the group, in the order they came. A call that waits longer than
   * grid.command_timeout for its turn is a 503.
   */
  async run(
    workspace: string,
    action: AnyAction,
    input: unknown,
    opts: CallOptions = {},
  ): Promise<AnyRecord> {
    const ended = await this.call(workspace, action, input, opts);
    if (!ended.ok) throw ended.error;
    return ended.result;
  }

  /** `run`, answering how the call ended (never throwing) with what the after-hook said. */
  async call(
    workspace: string,
    action: AnyAction,
    input: unknown,
    opts: CallOptions = {},
  ): Promise<Ended<T>> {
    try {
      return await this.turn(workspace, action, input, opts);
    } catch (error) {
      return { ok: false, error, after: undefined };
    }
  }

  private turn(workspace: string, action: AnyAction, input: unknown, opts: CallOptions): Promise<Ended<T>> {
    if (action.unleased) return this.runUnleased(workspace, action, action.unleased, input, opts);
    const wait = {
      waitMs: this.waitSeconds * 1000,
      signal: opts.signal,
      busy: () => unavailable(busyMessage(workspace, this.waitSeconds)),
    };
    return this.leases.run(workspace, wait, async (held) => {
      if (held.waitedMs > 0)
        log.debug(`workspace ${workspace}: ${action.name} waited ${held.waitedMs} ms for its turn`);
      const stop = new AbortController();
      const outer = opts.signal;
      const relay = () => stop.abort(outer?.reason);
      const lost = () => stop.abort(held.lost.reason);
      if (outer?.aborted) relay();
      else outer?.addEventListener("abort", relay, { once: true });
      held.lost.addEventListener("abort", lost, { once: true });
      this.running.set(workspace, stop);
      try {
        // The call's own fence and stop signal go down with its work (lifecycle.ts `Turn`).
        const turn: Turn = { fence: held.fence, stop: stop.signal };
        const ended = await this.runLocked(workspace, turn, action, input, { ...opts, signal: stop.signal });
        // Whatever a call that lost its lease ran into, that is why it stopped.
        if (!ended.ok && held.lost.aborted && !(ended.error instanceof LeaseLost))
          return { ...ended, error: held.lost.reason };
        return ended;
      } finally {
        outer?.removeEventListener("abort", relay);
        held.lost.removeEventListener("abort", lost);
        if (this.running.get(workspace) === stop) this.running.delete(workspace);
      }
    });
  }

  /** A waiting action: its handler holds no lease; `then` reads the page in the workspace's turn. */
  private async runUnleased(
    workspace: string,
    action: AnyAction,
    then: AnyAction,
    input: unknown,
    opts: CallOptions,
  ): Promise<Ended<T>> {
    if (action.precheck) await action.precheck({ workspace, services: this.ports.services }, input);
    const before = await this.ports.store.get(workspace);
    const stop = new AbortController();
    const relay = () => stop.abort(opts.signal?.reason);
    if (opts.signal?.aborted) relay();
    else opts.signal?.addEventListener("abort", relay, { once: true });
    const mine = this.waiting.get(workspace) ?? new Set();
    this.waiting.set(workspace, mine.add(stop));
    let out: AnyRecord;
    try {
      const ctx = this.context(workspace, {}, null, { ...opts, signal: stop.signal });
      out = split(await action.handler(ctx, input)).result;
    } finally {
      opts.signal?.removeEventListener("abort", relay);
      mine.delete(stop);
      if (mine.size === 0 && this.waiting.get(workspace) === mine) this.waiting.delete(workspace);
    }
    // No live browser (none opened; ended, forgotten or reaped): the page last known, none opened.
    const record = await this.ports.store.get(workspace);
    const url = (record && recordUrl(record)) || (before && recordUrl(before)) || "";
    const known = { url, title: "" };
    // A browser the Grid no longer has is not reopened to read its page (a full Grid would hold the
    // answer); one an admin's End is ending is not asked after (the Grid may take seconds to say).
    const live =
      !stop.signal.aborted &&
      record?.session_id &&
      (await this.ports.grid.alive(record.session_id).catch(() => false));
    if (!live || stop.signal.aborted) return { ok: true, result: { ...out, ...known }, after: undefined };
    const then_ = await this.call(workspace, then, {}, { signal: opts.signal });
    if (then_.ok) return { ...then_, result: { ...out, ...then_.result } };
    // The wait's outcome (a person's answer) is never lost to the page read failing.
    log.info(
      `workspace ${workspace}: ${then.name} after ${action.name} failed; answering the page last known`,
    );
    return { ok: true, result: { ...out, ...known }, after: then_.after };
  }

  /**
   * Admin End (and Forget): stops the workspace's call in flight, whatever it waits on (its browser's
   * connection closes under it), and ends the browser without waiting for that call's turn. On any
   * server: the call's lease is broken, so its writes from here on are refused and a browser it
   * opens is quit. The stopped call settles nothing: the record no longer names its browser.
   */
  async interrupt(workspace: string): Promise<{ ended: boolean }> {
    const reason = new Error("an admin ended this workspace's browser");
    this.running.get(workspace)?.abort(reason);
    for (const waiting of this.waiting.get(workspace) ?? []) waiting.abort(reason);
    await this.ports.store.breakLease(workspace);
    const record = await this.ports.store.get(workspace);
    if (record?.session_id) this.connections.drop(record.session_id);
    return this.lifecycle.end(workspace, { waitMs: INTERRUPT_WAIT_MS });
  }

  /** The call in its turn, ended by the after-hook, handed the browser the call leaves. */
  private async runLocked(
    workspace: string,
    turn: Turn,
    action: AnyAction,
    input: unknown,
    opts: CallOptions,
  ): Promise<Ended<T>> {
    const touched: Held[] = [];
    const hold = (b: Held) => {
      touched.push(b);
      return b;
    };
    // The page call in flight (a reopen starts another): the hook is handed the browser it holds.
    let call: Call | null = null;
    const end = (failed: boolean) =>
      afterCall(this.ports.after, this.lifecycle, { workspace, action, failed }, call?.browser ?? null);
    try {
      const result = await this.handle(workspace, turn, action, input, opts, hold, (c) => {
        call = c;
      });
      return { ok: true, result, after: await end(false) };
    } catch (error) {
      return { ok: false, error, after: await end(true) };
    } finally {
      for (const b of touched) b.release();
    }
  }

  private async handle(
    workspace: string,
    turn: Turn,
    action: AnyAction,
    input: unknown,
    opts: CallOptions,
    hold: (b: Held) => Held,
    tracked: (call: Call) => void,
  ): Promise<AnyRecord> {
    if (action.precheck) await action.precheck({ workspace, services: this.ports.services }, input);
    if (action.browser !== "page") {
      const ctx = this.context(workspace, turn, null, opts);
      const { result: out } = split(await action.handler(ctx, input));
      if (action.browser !== "none") this.hooks.changed?.(workspace);
      return out;
    }
    let browser = hold(await this.lifecycle.resolve(workspace, turn));
    let call = track(browser, hold, turn);
    tracked(call);
    let ctx = this.context(workspace, turn, browser, opts, call);
    let done: Awaited<ReturnType<typeof attempt>>;
    try {
      done = await attempt(this.hooks.capture, browser, action, input, ctx);
    } catch (err) {
      // Its channel died under the call, the browser still on the Grid (a page broke it): it is
      // ended, the next call replaces it, and the call says so. One the Grid reaped is reopened.
      const dead = [call.browser?.id, browser.id].find((id) => id && this.connections.dead(id));
      const gone = isNoSuchSession(err) || (dead && !(await this.ports.grid.alive(dead).catch(() => true)));
      if (dead && !gone) throw await this.lifecycle.endDead(workspace, dead, turn);
      if (!gone) throw err;
      // The Grid reaped it between calls: reopen silently and do the call on the new browser.
      log.info(`workspace ${workspace}: its browser was gone; reopening it`);
      browser = hold(await this.lifecycle.reopen(workspace, browser.id, turn));
      call = track(browser, hold, turn);
      tracked(call);
      ctx = this.context(workspace, turn, browser, opts, call);
      done = await attempt(this.hooks.capture, browser, action, input, ctx);
    }
    // A runner's steps may have replaced the browser (reopen, open or end step): settle for the one it has now.
    // What the handler said happened, applied once, in the one settle write.
    const { result, happened } = done;
    const state: CallState = {
      landed: happened.landed,
      changes: [...(happened.changes ?? [])],
      ...(happened.pages ? { pages: [...happened.pages] } : {}),
    };
    const now = call.browser;
    const where = now?.where();
    if (now && where) {
      state.changes.push((r, b) => (b === now.id ? focused(r, b, where) : r));
      state.elsewhere = this.connections.peek(now.id)?.pages.take(where.tab);
    }
    const settled = await this.settle(
      workspace,
      result,
      now?.id ?? "",
      action.reshapes === true,
      state,
      turn,
    );
    this.hooks.changed?.(workspace);
    return settled;
  }

  /** The step runner for a page call's context (see `Steps`): ctx.steps(). */
  steps(ctx: ActionContext): Steps {
    return ctx.steps();
  }

  private context(
    workspace: string,
    turn: Turn,
    browser: LiveBrowser | null,
    opts: CallOptions,
    call: Call | null = null,
  ) {
    return contextOf(this.contexts, workspace, turn, browser, opts, call);
  }

  /**
   * The browser's held connection. One that cannot be had may mean the Grid reaped the browser:
   * then it says so the way WebDriver does, and the call reopens it.
   */
  connection(id: string): Promise<HeldConnection> {
    return this.browsers.connection(id);
  }

  /** Finishes a page call: one write for history, TTL, reopen report, window and the action's changes. */
  private settle(
    workspace: string,
    raw: AnyRecord,
    browser: string,
    reshapes: boolean,
    state: CallState,
    turn: Turn,
  ): Promise<AnyRecord> {
    const d = {
      store: this.ports.store,
      now: this.ports.now,
      redactor: this.ports.services.redactor,
      fence: { fence: turn.fence },
    };
    return settle(d, workspace, raw, browser, reshapes, state);
  }

  /** workspace://current. Never opens a browser. */
  describe(workspace: string): Promise<Describe> {
    const d = { store: this.ports.store, grid: this.ports.grid, browsers: this.browsers, hooks: this.hooks };
    return describe({ ...d, redactor: this.ports.services.redactor }, workspace);
  }
}
