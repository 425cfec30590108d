// One call, end to end, for every surface (REST, MCP, a person's input), as stages in one place:
// admit (validation, unless the route read the input) → turn (the workspace's lease, one call at a
// time on every server) → browser (the record's, reopened when the Grid reaped it) → handler (it
// writes what it did into the call's effects, and answers its result) → apply (the effects in one
// fenced settle write, the result redacted there) → the answer → record (subscribers hear the change
// and the call ended, in the turn, with the browser it leaves; the lease goes after). Each stage's
// output is the next one's input. The browser, handler and apply stages are runner.ts's, made from the
// parts (not the pipeline); a flow run's steps (ctx.steps()) go through it without entering the pipeline again. Nothing
// of the pipeline is handed down to be called back (a surface's own `progress` reaches the handler as it came).
import type { AnyAction, LiveBrowser } from "../actions/action.ts";
import type { CallEnd, Ended, Invocation, Recording, Subscriber } from "../actions/call.ts";
import type { ActionServices } from "../actions/ports.ts";
import { validate } from "../actions/validate.ts";
import { LeaseLost, messageOf, unavailable } from "../errors.ts";
import type { HeldConnections } from "../grid/held-pool.ts";
import type { Grid } from "../grid/webdriver.ts";
import { recordUrl } from "../store/record.ts";
import type { RecordStore } from "../store/types.ts";
import type { Browsers, CallBrowser } from "./browsers.ts";
import type { Leases, WaitOptions } from "./lease.ts";
import type { Lifecycle, ManagerHooks } from "./lifecycle.ts";
import { act, type Call, type CallOptions, contextOf, effectsOf, type RunnerNeeds } from "./runner.ts";
import { awaitHandBack, takenOverIn } from "./taken-over.ts";

type AnyRecord = Record<string, unknown>;

export interface PipelineNeeds {
  store: RecordStore;
  grid: Grid;
  now: () => number;
  services: ActionServices;
  hooks: ManagerHooks;
  lifecycle: Lifecycle;
  browsers: Browsers;
  leases: Leases;
  connections: HeldConnections;
  /** Seconds a call waits for its workspace's lease before a 503. */
  waitSeconds: number;
}

export const busyMessage = (workspace: string, seconds: number) =>
  `another call holds workspace ${workspace} and did not end within ${seconds} s: retry once it has ended`;

/**
 * The lease of `name`, asked of the store in one step with the record under it (a workspace's: the
 * call's one read of it), waiting in line while another holds it (lease.ts keeps the line and renews
 * the lease granted).
 */
export async function leased(store: RecordStore, leases: Leases, name: string, opts: WaitOptions) {
  const line = leases.line(name, opts);
  try {
    for (;;) {
      const granted = await store.takeLeaseReading(name, line.ticket, line.ms);
      if (granted) return { ...line.held(granted.token), record: granted.record };
      await line.wait();
    }
  } catch (err) {
    await line.leave();
    throw err;
  }
}

/** What a call is recorded with (null: not recorded, as the page read after a wait). */
type Facts = Omit<CallEnd, "ms" | "ended" | "browser"> & { began: number };

export class CallPipeline implements Recording {
  /** Each workspace's call in flight on this server, to stop it (an admin's End). */
  private readonly running = new Map<string, AbortController>();
  /** Each workspace's waiting (unleased) calls on this server, to cancel them (End, Forget). */
  private readonly waiting = new Map<string, Set<AbortController>>();
  private readonly subscribers: Subscriber[] = [];
  /** Each workspace's turns still ending on this server (their records follow the answers), the last one's end. */
  private readonly ending = new Map<string, Promise<void>>();
  /** What the browser and handler stage (runner.ts) works with: the parts, not the pipeline. */
  private readonly parts: RunnerNeeds;

  constructor(private readonly needs: PipelineNeeds) {
    const { services, lifecycle, browsers, connections, grid, store, now, hooks } = needs;
    const subscribers = this.subscribers;
    this.parts = { services, lifecycle, browsers, connections, grid, store, now, hooks, subscribers };
  }

  /** Runs one call through every stage: its result, or its error thrown once its record is on its way. */
  async invoke(call: Invocation): Promise<AnyRecord> {
    const { surface, workspace, action, args } = call;
    const facts: Facts = {
      surface,
      workspace,
      action,
      args,
      time: this.needs.now(),
      began: performance.now(),
    };
    let ended: Ended;
    try {
      const input = call.input ?? validate(action.input, args);
      ended = await this.turn(workspace, action, input, call, facts);
    } catch (error) {
      // It never had its turn (refused, or its lease never came): recorded without a browser, before
      // its answer (no lease orders it), after the records of the calls answered before it here.
      ended = { ok: false, error };
      await this.ending.get(workspace);
      await this.record(facts, ended, null);
    }
    if (!ended.ok) throw ended.error;
    return ended.result;
  }

  /** `s` hears every call from now on: a change as it is written, a call as it ends. */
  subscribe(s: Subscriber): void {
    this.subscribers.push(s);
    s.subscribed?.(this);
  }

  /** Once every call answered here so far (on `workspace`) ended its turn: record written, later work done, lease gone. */
  async recorded(workspace?: string): Promise<void> {
    if (workspace !== undefined) await this.ending.get(workspace);
    else await Promise.all(this.ending.values());
  }

  /** Stops the workspace's call in flight and its waiting calls on this server. */
  stop(workspace: string, reason: Error): void {
    this.running.get(workspace)?.abort(reason);
    for (const waiting of this.waiting.get(workspace) ?? []) waiting.abort(reason);
  }

  /**
   * The turn: the workspace's lease (one call at a time on every server of the group, in the order
   * they came; a call that waits longer than grid.command_timeout is a 503), the call in it, and its
   * record before the lease goes. A call that lost its lease ends with why.
   */
  private async turn(
    workspace: string,
    action: AnyAction,
    input: unknown,
    opts: CallOptions & Pick<Invocation, "missing">,
    facts: Facts | null,
  ): Promise<Ended> {
    if (action.unleased) return this.unleased(workspace, action, input, opts, facts);
    const lease = await this.take(workspace, facts !== null && facts.surface !== "person", opts.signal);
    // A call that needs its workspace there, which has no record: refused now, nothing recorded.
    const refused = lease.record === null ? opts.missing?.() : null;
    if (refused) {
      await lease.release();
      return { ok: false, error: refused };
    }
    if (lease.waitedMs > 0)
      this.needs.services.log.debug(
        `workspace ${workspace}: ${action.name} waited ${lease.waitedMs} ms for its turn`,
      );
    const stop = new AbortController();
    const outer = opts.signal;
    const relay = () => stop.abort(outer?.reason);
    const lost = () => stop.abort(lease.lost.reason);
    if (outer?.aborted) relay();
    else outer?.addEventListener("abort", relay, { once: true });
    lease.lost.addEventListener("abort", lost, { once: true });
    this.running.set(workspace, stop);
    const call: Call = {
      browser: null,
      known: lease.record,
      reopened: false,
      turn: { fence: lease.fence, stop: stop.signal },
      taken: [],
      effects: effectsOf(this.needs.services, workspace),
    };
    const done = () => {
      call.recorded?.();
      for (const b of call.taken) b.release();
      outer?.removeEventListener("abort", relay);
      lease.lost.removeEventListener("abort", lost);
      if (this.running.get(workspace) === stop) this.running.delete(workspace);
      return lease.release();
    };
    try {
      let ended: Ended;
      try {
        ended = {
          ok: true,
          result: await this.handle(workspace, call, action, input, { ...opts, signal: stop.signal }),
        };
      } catch (error) {
        ended = { ok: false, error };
      }
      // Whatever a call that lost its lease ran into, that is why it stopped.
      if (!ended.ok && lease.lost.aborted && !(ended.error instanceof LeaseLost))
        ended = { ok: false, error: lease.lost.reason };
      // The answer goes now; the record follows it, and the lease goes once the record and the call's
      // later work are done, so the next call on the workspace, on any server, never meets either half
      // done (its entry is numbered after this one's).
      const changed = ended.ok && action.browser !== "none";
      const recorded = this.recordAfter(workspace, facts, ended, call, changed);
      this.ends(workspace, Promise.all([recorded, call.effects.drained()]).finally(done));
      return ended;
    } catch (err) {
      await done();
      throw err;
    }
  }

  /**
   * The workspace's lease, with its record read in the same store step (the call's one read of it).
   * While a person has taken over, an agent's call gives it back, waits for Hand back (a 409 after a
   * while), and takes it again.
   */
  private async take(workspace: string, agent: boolean, signal?: AbortSignal) {
    const seconds = this.needs.waitSeconds;
    const busy = () => unavailable(busyMessage(workspace, seconds));
    for (;;) {
      const lease = await leased(this.needs.store, this.needs.leases, workspace, {
        waitMs: seconds * 1000,
        signal,
        busy,
      });
      if (!agent || !takenOverIn(lease.record, this.needs.now())) return lease;
      await lease.release();
      await awaitHandBack(this.needs.store, workspace, this.needs.now, signal);
    }
  }

  /** A waiting action: its handler holds no lease; `then` reads the page in the workspace's turn. */
  private async unleased(
    workspace: string,
    action: AnyAction,
    input: unknown,
    opts: CallOptions,
    facts: Facts | null,
  ): Promise<Ended> {
    const ended = await this.waitFor(workspace, action, action.unleased as AnyAction, input, opts).then(
      (result): Ended => ({ ok: true, result }),
      (error): Ended => ({ ok: false, error }),
    );
    if (facts) {
      await this.ending.get(workspace);
      await this.record(facts, ended, null);
    }
    return ended;
  }

  private async waitFor(
    workspace: string,
    action: AnyAction,
    then: AnyAction,
    input: unknown,
    opts: CallOptions,
  ): Promise<AnyRecord> {
    if (action.precheck) await action.precheck({ workspace, services: this.needs.services }, input);
    const before = await this.needs.store.get(workspace);
    const stop = new AbortController();
    const relay = () => stop.abort(opts.signal?.reason);
    if (opts.signal?.aborted) relay();
    else opts.signal?.addEventListener("abort", relay, { once: true });
    const mine = this.waiting.get(workspace) ?? new Set();
    this.waiting.set(workspace, mine.add(stop));
    let out: AnyRecord;
    try {
      const ctx = contextOf(this.parts, workspace, {}, null, { ...opts, signal: stop.signal });
      out = await action.handler(ctx, input);
    } finally {
      opts.signal?.removeEventListener("abort", relay);
      mine.delete(stop);
      if (mine.size === 0 && this.waiting.get(workspace) === mine) this.waiting.delete(workspace);
    }
    // No live browser (none opened; ended, forgotten or reaped): the page last known, none opened.
    const record = await this.needs.store.get(workspace);
    const url = (record && recordUrl(record)) || (before && recordUrl(before)) || "";
    const known = { ...out, url, title: "" };
    // A browser the Grid no longer has is not reopened to read its page (a full Grid would hold the
    // answer); one an admin's End is ending is not asked after (the Grid may take seconds to say).
    const live =
      !stop.signal.aborted &&
      record?.session_id &&
      (await this.needs.grid.alive(record.session_id).catch(() => false));
    if (!live || stop.signal.aborted) return known;
    const page = await this.turn(workspace, then, {}, { ...(opts.signal && { signal: opts.signal }) }, null);
    if (page.ok) return { ...out, ...page.result };
    // The wait's outcome (a person's answer) is never lost to the page read failing.
    this.needs.services.log.info(
      `workspace ${workspace}: ${then.name} after ${action.name} failed; answering the page last known`,
    );
    return known;
  }

  /** In the turn: the browser, the handler (once more on a reopened browser), and the settle. */
  private async handle(
    workspace: string,
    call: Call,
    action: AnyAction,
    input: unknown,
    opts: CallOptions,
  ): Promise<AnyRecord> {
    const { services } = this.needs;
    if (action.precheck) await action.precheck({ workspace, services, origin: opts.origin }, input);
    if (action.browser !== "page")
      return await action.handler(contextOf(this.parts, workspace, call.turn, null, opts), input);
    // Applied in its settle write; its later work runs on after the answer, in the turn.
    return await act(this.parts, workspace, call, action, input, {
      ...opts,
      whole: true,
      effects: call.effects,
    });
  }

  /**
   * The record stage of a call that had its turn, once its answer has gone (the task that hands it
   * to its surface is over): the subscribers hear the change (a settle write, a browser opened or
   * ended) and, with facts, the call ended, with the browser it leaves (the workspace's, for one
   * that had none) and the elements its selectors named by ref (grid/page-found.ts).
   */
  private async recordAfter(
    workspace: string,
    facts: Facts | null,
    ended: Ended,
    call: Call,
    changed: boolean,
  ): Promise<void> {
    const ms = Math.round(performance.now() - (facts?.began ?? 0));
    await new Promise<void>((answered) => setImmediate(answered));
    if (changed) this.changed(workspace);
    if (!facts) return;
    let own: CallBrowser | null = null;
    try {
      if (!call.browser && facts.action.browser !== "none")
        own = await this.needs.lifecycle.current(workspace).catch(() => null);
      // Only a browser connected here is asked where it is: the record holds the lease, and a Grid
      // that does not answer would keep the next call waiting on it.
      const left = call.browser ?? own;
      const reached = left && this.needs.connections.peek(left.id) ? left : null;
      const located = call.browser?.located();
      await this.record({ ...facts, located, ...(!reached && { unreached: true }) }, ended, reached, ms);
    } finally {
      own?.release();
    }
  }

  /** Keeps the turn's end (`end`) until it is over, for this server's reads (`recorded`). */
  private ends(workspace: string, end: Promise<unknown>): void {
    const last = Promise.all([this.ending.get(workspace), end])
      .catch((err: unknown) =>
        this.needs.services.log.warn(`workspace ${workspace}: a call's turn ended badly: ${messageOf(err)}`),
      )
      .then(() => undefined);
    this.ending.set(workspace, last);
    void last.then(() => {
      if (this.ending.get(workspace) === last) this.ending.delete(workspace);
    });
  }

  /** The record stage: each subscriber hears the call ended, in order (the activity log, the timeline). */
  private async record(facts: Facts, ended: Ended, browser: LiveBrowser | null, ms?: number): Promise<void> {
    const { began, ...call } = facts;
    const end: CallEnd = { ...call, ms: ms ?? Math.round(performance.now() - began), ended, browser };
    for (const s of this.subscribers) await s.ended?.(end);
  }

  private changed(workspace: string): void {
    for (const s of this.subscribers) s.changed?.(workspace);
  }
}
