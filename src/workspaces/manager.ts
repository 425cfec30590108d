// The workspace manager: maps a workspace name to its browser, reopening a reaped one silently,
// runs each call under the workspace's lease (one call at a time across every server of a group),
// and settles every result in one record write (history, TTL, reopen report, window size, and any
// change the action asked for). The writes a call makes are fenced by its lease: a call that lost
// it writes nothing more, and a browser it opened is quit. Opening, reopening and ending a browser
// are lifecycle.ts's; the settle write settle.ts's; a runner's steps runner.ts's.

import { AsyncLocalStorage } from "node:async_hooks";
import type { ActionContext, ActionServices, AnyAction, LiveBrowser } from "../actions/define.ts";
import { LeaseLost, unavailable } from "../errors.ts";
import { SANDBOX } from "../grid/bidi.ts";
import { type HeldConnection, HeldConnections, IDLE_MS } from "../grid/held.ts";
import { LIBRARY_PRELOAD } from "../grid/page.ts";
import { type Grid, isNoSuchSession } from "../grid/webdriver.ts";
import { log } from "../log.ts";
import type { SecretCatalogue } from "../secrets/catalogue.ts";
import { focused } from "../store/record.ts";
import type { LeaseFence, RecordStore } from "../store/types.ts";
import { Browsers, type Held } from "./browsers.ts";
import { type Describe, describe } from "./describe.ts";
import { Lifecycle, type ManagerHooks } from "./lifecycle.ts";
import { Leases } from "./lock.ts";
import { type Call, type Runner, stepsOf } from "./runner.ts";
import { type CallState, settle } from "./settle.ts";
import type { Steps } from "./steps.ts";

export type { Describe } from "./describe.ts";
export { INSECURE_SKIP, type ManagerHooks, RECORDING_OFF } from "./lifecycle.ts";

interface CallOptions {
  signal?: AbortSignal;
  progress?: (progress: number, total: number | undefined, message: string) => void;
  /** Runs once the call is done (or failed), still in the workspace's turn: the timeline's screen. */
  after?: () => Promise<void>;
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

export class WorkspaceManager {
  /** One call at a time per workspace, across every server of the store. */
  readonly leases: Leases;
  private readonly waitSeconds: number;
  private services!: ActionServices;
  /** Each workspace's call in flight on this server, to stop it (interrupt). */
  private readonly running = new Map<string, AbortController>();
  /**
   * The call a piece of work belongs to, carried with it (not looked up by workspace name): a call
   * stopped by an admin's End keeps its own, broken, fence, so it can never write with the next
   * call's, and its own stop signal.
   */
  private readonly calls = new AsyncLocalStorage<{
    workspace: string;
    fence: LeaseFence;
    stop: AbortSignal;
  }>();
  /** One BiDi connection per live browser this server has touched. */
  readonly connections: HeldConnections;
  private readonly browsers: Browsers;
  /** Opening, reopening and ending the workspace's browser. */
  private readonly lifecycle: Lifecycle;
  /** What a runner's steps run through. */
  private readonly runner: Runner;

  constructor(
    private readonly store: RecordStore,
    private readonly grid: Grid,
    private readonly now: () => number,
    readonly hooks: ManagerHooks = {},
    lease: LeaseSettings = { lease: 15, wait: 60 },
  ) {
    this.connections = new HeldConnections(
      (id) => this.grid.bidi(id),
      IDLE_MS,
      { functionDeclaration: LIBRARY_PRELOAD, sandbox: SANDBOX },
      lease.logs,
    );
    this.browsers = new Browsers(grid, this.connections, lease.schemes);
    this.lifecycle = new Lifecycle({
      store,
      grid,
      now,
      hooks,
      browsers: this.browsers,
      fenceOf: (workspace) => this.fenceOf(workspace),
      stopped: (workspace) => this.callOf(workspace)?.stop.aborted === true,
    });
    this.runner = {
      lifecycle: this.lifecycle,
      context: (workspace, browser, opts) => this.context(workspace, browser, opts),
      settle: (...args) => this.settle(...args),
    };
    this.leases = new Leases(store, lease.lease * 1000);
    this.waitSeconds = lease.wait;
  }

  /** Called once by the composition root: the ports handlers get (ctx.services). */
  bind(services: ActionServices): void {
    this.services = services;
  }

  /**
   * Runs one action for a workspace under the workspace's lease: one call at a time per workspace
   * on every server of the group, in the order they came. A call that waits longer than
   * grid.command_timeout for its turn is a 503.
   */
  run(workspace: string, action: AnyAction, input: unknown, opts: CallOptions = {}): Promise<AnyRecord> {
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
        const call = { workspace, fence: held.fence, stop: stop.signal };
        return await this.calls.run(call, () =>
          this.runLocked(workspace, action, input, { ...opts, signal: stop.signal }),
        );
      } catch (err) {
        // Whatever a call that lost its lease ran into, that is why it stopped.
        if (held.lost.aborted && !(err instanceof LeaseLost)) throw held.lost.reason;
        throw err;
      } finally {
        outer?.removeEventListener("abort", relay);
        held.lost.removeEventListener("abort", lost);
        if (this.running.get(workspace) === stop) this.running.delete(workspace);
        await opts.after?.().catch(() => undefined);
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
  ): Promise<AnyRecord> {
    if (action.precheck) await action.precheck({ workspace, services: this.services }, input);
    const out = (await action.handler(this.context(workspace, null, opts).ctx, input)) as AnyRecord;
    return { ...out, ...(await this.run(workspace, then, {}, { signal: opts.signal })) };
  }

  /**
   * Admin End (and Forget): stops the workspace's call in flight, whatever it waits on (its browser's
   * connection closes under it), and ends the browser without waiting for that call's turn. On any
   * server: the call's lease is broken, so its writes from here on are refused and a browser it
   * opens is quit. The stopped call settles nothing: the record no longer names its browser.
   */
  async interrupt(workspace: string): Promise<{ ended: boolean }> {
    this.running.get(workspace)?.abort(new Error("an admin ended this workspace's browser"));
    await this.store.breakLease(workspace);
    const record = await this.store.get(workspace);
    if (record?.session_id) this.connections.drop(record.session_id);
    return this.lifecycle.end(workspace, { waitMs: INTERRUPT_WAIT_MS });
  }

  /** The lease of the workspace's call in flight on this server: its writes go through it. */
  private fenceOf(workspace: string): { fence?: LeaseFence } {
    const call = this.callOf(workspace);
    return call ? { fence: call.fence } : {};
  }

  /** The call of `workspace` this work runs in, or undefined outside one (an admin's End). */
  private callOf(workspace: string) {
    const call = this.calls.getStore();
    return call?.workspace === workspace ? call : undefined;
  }

  private async runLocked(
    workspace: string,
    action: AnyAction,
    input: unknown,
    opts: CallOptions,
  ): Promise<AnyRecord> {
    if (action.precheck) await action.precheck({ workspace, services: this.services }, input);
    if (action.browser !== "page") {
      const ctx = this.context(workspace, null, opts);
      const out = (await action.handler(ctx.ctx, input)) as AnyRecord;
      if (action.browser !== "none") this.hooks.changed?.(workspace);
      return out;
    }
    const touched: Held[] = [];
    const hold = (b: Held) => {
      touched.push(b);
      return b;
    };
    let browser = hold(await this.lifecycle.resolve(workspace));
    let call = this.track(browser, hold);
    let ctx = this.context(workspace, browser, opts, call);
    let result: AnyRecord;
    try {
      try {
        result = await this.attempt(browser, action, input, ctx);
      } catch (err) {
        if (!isNoSuchSession(err)) throw err;
        // The Grid reaped it between calls: reopen silently and do the call on the new browser.
        log.info(`workspace ${workspace}: its browser was gone; reopening it`);
        browser = hold(await this.lifecycle.reopen(workspace, browser.id));
        call = this.track(browser, hold);
        ctx = this.context(workspace, browser, opts, call);
        result = await this.attempt(browser, action, input, ctx);
      }
      // A runner's steps may have replaced the browser (reopen, open or end step): settle for the one it has now.
      const now = call.browser;
      const where = now?.where();
      if (now && where) {
        ctx.state.changes.push((r, b) => (b === now.id ? focused(r, b, where) : r));
        ctx.state.elsewhere = this.connections.peek(now.id)?.pages.take(where.tab);
      }
      const settled = await this.settle(
        workspace,
        result,
        now?.id ?? "",
        action.reshapes === true,
        ctx.state,
      );
      this.hooks.changed?.(workspace);
      return settled;
    } finally {
      for (const b of touched) b.release();
    }
  }

  private async attempt(
    browser: LiveBrowser,
    action: AnyAction,
    input: unknown,
    ctx: ReturnType<WorkspaceManager["context"]>,
  ): Promise<AnyRecord> {
    const capture = browser.settings.capture === true ? this.hooks.capture : undefined;
    if (!capture) return (await action.handler(ctx.ctx, input)) as AnyRecord;
    let result: AnyRecord = {};
    const page = await capture(browser, async () => {
      result = (await action.handler(ctx.ctx, input)) as AnyRecord;
    });
    return page ? { ...result, page } : result;
  }

  private track(browser: Held, hold: (b: Held) => Held): Call {
    return { browser, reopened: false, state: { landed: undefined, changes: [] }, hold };
  }

  /** The step runner for a page call's context (see `Steps`): ctx.steps(). */
  steps(ctx: ActionContext): Steps {
    return ctx.steps();
  }

  private context(
    workspace: string,
    browser: LiveBrowser | null,
    opts: CallOptions,
    call: Call | null = null,
  ) {
    const state: CallState = call?.state ?? { landed: undefined, changes: [] };
    const live = browser;
    const ctx: ActionContext = {
      workspace,
      services: this.services,
      get browser(): LiveBrowser {
        if (!live) throw new Error("this action has no browser");
        return live;
      },
      lifecycle: {
        open: (req) => this.lifecycle.open(workspace, req),
        end: () => this.lifecycle.end(workspace, this.fenceOf(workspace)),
      },
      steps: () => {
        if (!call) throw new Error("steps() takes the context of a page action's call");
        return stepsOf(this.runner, workspace, call);
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
  ): Promise<AnyRecord> {
    const d = { store: this.store, now: this.now, secrets: this.secrets(), fence: this.fenceOf(workspace) };
    return settle(d, workspace, raw, browser, reshapes, state);
  }

  /** The catalogue handlers are bound to (unit tests may bind services without one). */
  private secrets(): SecretCatalogue | undefined {
    return this.services?.secrets as SecretCatalogue | undefined;
  }

  /** workspace://current. Never opens a browser. */
  describe(workspace: string): Promise<Describe> {
    const d = { store: this.store, grid: this.grid, browsers: this.browsers, hooks: this.hooks };
    return describe({ ...d, secrets: this.secrets() }, workspace);
  }
}
