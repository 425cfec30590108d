// The workspace manager: maps a workspace name to its browser, reopening a reaped one silently,
// runs each call under the workspace's lease (one call at a time across every server of a group),
// and settles every result in one record write (history, TTL, reopen report, window size, and any
// change the action asked for). The writes a call makes are fenced by its lease: a call that lost
// it writes nothing more, and a browser it opened is quit.

import { error as wd } from "selenium-webdriver";
import {
  type ActionContext,
  type ActionServices,
  type AnyAction,
  type LiveBrowser,
  type RecordChange,
  SITE_DATA_URI,
} from "../actions/define.ts";
import { stale } from "../actions/shape.ts";
import { badInput, LeaseLost, unavailable } from "../errors.ts";
import { SANDBOX } from "../grid/bidi.ts";
import { type HeldConnection, HeldConnections, IDLE_MS } from "../grid/held.ts";
import { LIBRARY_PRELOAD, Page, type Where } from "../grid/page.ts";
import { type Grid, isNoSuchSession } from "../grid/webdriver.ts";
import { log } from "../log.ts";
import { hideValuesDeep, secretValuesOf, taints } from "../secrets/bound.ts";
import {
  at,
  type BrowserSettings,
  delivered,
  detached,
  emptyRecord,
  focused,
  focusFor,
  recordUrl,
  reportFor,
  reshaped,
  type SiteData,
  type SiteDataReport,
  siteDataWithin,
  type WorkspaceRecord,
  withSiteData,
} from "../store/record.ts";
import type { LeaseFence, RecordStore, UpdateFn } from "../store/types.ts";
import { Leases } from "./lock.ts";
import {
  DEFAULT_HEIGHT,
  DEFAULT_WIDTH,
  type OpenRequest,
  type OpenResult,
  openOptions,
  resolveSettings,
} from "./settings.ts";
import type { StepOutcome, Steps } from "./steps.ts";

export const INSECURE_SKIP = "an insecure browser gets no saved site data";
export const RECORDING_OFF =
  "Recording is not set up on this server (recording.enabled is off). See the README's Recording section.";

/** What other capabilities plug into the manager. Each is optional. */
export interface ManagerHooks {
  /** Whether a snapshot holds anything to put back. */
  restorable?: (data: SiteData) => boolean;
  /** Puts a snapshot into a fresh browser before its first page. Never throws. */
  restore?: (browser: LiveBrowser, data: SiteData) => Promise<SiteDataReport>;
  /** `{sites, uri}` for workspace://current, or null when nothing is saved. */
  siteDataSummary?: (data: SiteData) => { sites: number; uri: string } | null;
  /** Wraps one page call of a browser opened with capture=true; returns what the page reported. */
  capture?: (browser: LiveBrowser, call: () => Promise<void>) => Promise<Record<string, unknown> | null>;
  recordings?: {
    /** Files a note for the browser's recording; returns an error text when it cannot be filed. */
    expect(workspace: string, gridId: string, browser: string): string | null;
    ended(gridId: string): void;
  };
  /** A workspace's record or browser changed (admin live updates). */
  changed?: (workspace: string) => void;
}

export interface Describe {
  live: boolean;
  url: string | null;
  title?: string;
  settings: BrowserSettings;
  recording: boolean;
  site_data?: { sites: number; uri: string };
}

interface Launched {
  id: string;
  url: string;
  title: string;
  report: SiteDataReport | null;
}

interface CallOptions {
  signal?: AbortSignal;
  progress?: (progress: number, total: number | undefined, message: string) => void;
  /** Runs once the call is done (or failed), still in the workspace's turn: the timeline's screen. */
  after?: () => Promise<void>;
}

type AnyRecord = Record<string, unknown>;

interface CallState {
  landed: string | null | undefined;
  changes: RecordChange[];
  /** Several pages to record, in order (a runner's); when set, `landed` is not used. */
  pages?: Array<string | null>;
}

/** A browser as one call holds it: its page port is made on first use and given back at the end. */
interface Held extends LiveBrowser {
  /** Where the page is now (null: the call never looked). */
  where(): Where | null;
  release(): void;
}

interface Call {
  browser: Held | null;
  reopened: boolean;
  state: CallState;
  /** Keeps a browser the call came to hold, so it is given back when the call ends. */
  hold: (b: Held) => Held;
}

/** Classic WebDriver's default page load timeout, which the browser keeps when none is set. */
const PAGE_LOAD_MS = 300_000;
const SCRIPT_MS = 30_000;
/** How long an admin's End waits for the Grid to quit the browser before answering (it goes on). */
const INTERRUPT_WAIT_MS = 2_000;

export interface LeaseSettings {
  /** Seconds a lease lives unless renewed (session.lease). */
  lease: number;
  /** Seconds a call waits for its workspace's lease before a 503 (grid.command_timeout). */
  wait: number;
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
  /** The lease each of those calls holds: it fences their writes. */
  private readonly fences = new Map<string, LeaseFence>();
  /** One BiDi connection per live browser this server has touched. */
  readonly connections: HeldConnections;

  constructor(
    private readonly store: RecordStore,
    private readonly grid: Grid,
    private readonly now: () => number,
    readonly hooks: ManagerHooks = {},
    lease: LeaseSettings = { lease: 15, wait: 60 },
  ) {
    this.connections = new HeldConnections((id) => this.grid.bidi(id), IDLE_MS, {
      functionDeclaration: LIBRARY_PRELOAD,
      sandbox: SANDBOX,
    });
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
      this.fences.set(workspace, held.fence);
      try {
        return await this.runLocked(workspace, action, input, { ...opts, signal: stop.signal });
      } catch (err) {
        // Whatever a call that lost its lease ran into, that is why it stopped.
        if (held.lost.aborted && !(err instanceof LeaseLost)) throw held.lost.reason;
        throw err;
      } finally {
        outer?.removeEventListener("abort", relay);
        held.lost.removeEventListener("abort", lost);
        if (this.running.get(workspace) === stop) this.running.delete(workspace);
        if (this.fences.get(workspace) === held.fence) this.fences.delete(workspace);
        await opts.after?.().catch(() => undefined);
      }
    });
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
    return this.endNow(workspace, { waitMs: INTERRUPT_WAIT_MS });
  }

  /** The lease of the workspace's call in flight on this server: its writes go through it. */
  private fenceOf(workspace: string): { fence?: LeaseFence } {
    const fence = this.fences.get(workspace);
    return fence ? { fence } : {};
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
    let browser = hold(await this.resolve(workspace));
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
        browser = hold(await this.reopen(workspace, browser.id));
        call = this.track(browser, hold);
        ctx = this.context(workspace, browser, opts, call);
        result = await this.attempt(browser, action, input, ctx);
      }
      // A runner's steps may have replaced the browser (reopen, open or end step): settle for the one it has now.
      const now = call.browser;
      const where = now?.where();
      if (now && where) ctx.state.changes.push((r, b) => (b === now.id ? focused(r, b, where) : r));
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

  private stepsOf(workspace: string, call: Call): Steps {
    return {
      get browser() {
        return call.browser;
      },
      run: (action, input, opts) => this.step(workspace, call, action, input, opts),
      touch: async (urls, changes = []) => {
        const out = await this.settle(workspace, {}, call.browser?.id ?? "", false, {
          landed: null,
          changes: [...changes],
          pages: [...urls],
        });
        return (out.site_data as SiteDataReport | undefined) ?? null;
      },
      land: (urls) => {
        call.state.pages = [...urls];
      },
    };
  }

  private async step(
    workspace: string,
    call: Call,
    action: AnyAction,
    input: unknown,
    opts: { signal: AbortSignal; beforeReopen?: () => Promise<void> },
  ): Promise<StepOutcome> {
    const once = async (): Promise<StepOutcome> => {
      if (action.browser === "page" && !call.browser) call.browser = call.hold(await this.resolve(workspace));
      const c = this.context(workspace, action.browser === "page" ? call.browser : null, {
        signal: opts.signal,
      });
      try {
        const result = (await action.handler(c.ctx, input)) as AnyRecord;
        return { result, landed: c.state.landed, changes: c.state.changes };
      } finally {
        // An open or end step replaced the record's browser: the rest of the call uses what it holds.
        if (action.browser === "open" || action.browser === "end") {
          const now = await this.held(workspace);
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
      call.browser = call.hold(await this.reopen(workspace, call.browser.id));
      return await once();
    }
  }

  private async held(workspace: string): Promise<Held | null> {
    const record = await this.store.get(workspace);
    return record?.session_id ? this.live(record.session_id, record.settings, record) : null;
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
        open: (req) => this.openBrowser(workspace, req),
        end: () => this.endBrowser(workspace),
      },
      steps: () => {
        if (!call) throw new Error("steps() takes the context of a page action's call");
        return this.stepsOf(workspace, call);
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
  async connection(id: string): Promise<HeldConnection> {
    try {
      return await this.connections.get(id);
    } catch (err) {
      // A Grid that does not answer is named as such (its own 503), rather than the socket.
      if (!(await this.grid.alive(id))) {
        this.connections.drop(id);
        throw new wd.NoSuchSessionError("the browser is gone");
      }
      throw err;
    }
  }

  private live(id: string, settings: BrowserSettings, record: WorkspaceRecord | null = null): Held {
    const driver = this.grid.attach(id);
    let page: Promise<Page> | null = null;
    let made: Page | null = null;
    let release: (() => void) | null = null;
    const known = focusFor(record, id);
    const pageLoadMs =
      typeof settings.page_load_timeout === "number" ? settings.page_load_timeout * 1000 : PAGE_LOAD_MS;
    const scriptMs = typeof settings.script_timeout === "number" ? settings.script_timeout * 1000 : SCRIPT_MS;
    const open = async (): Promise<Page> => {
      const conn = await this.connection(id);
      release?.();
      release = conn.use();
      const page = new Page(conn, known ?? { tab: "", frame: null }, {
        pageLoadMs,
        scriptMs,
        gone: async () => !(await this.grid.alive(id)),
      });
      if (!known) {
        // The browser's first tab, until the agent picks another.
        const first = (await page.tabs())[0];
        if (!first) throw new wd.NoSuchWindowError("the browser has no tab");
        page.where.tab = first.context;
      }
      made = page;
      return page;
    };
    return {
      id,
      driver,
      settings,
      bidi: async () => (await this.connection(id)).socket,
      page: () => {
        page ??= open().catch((err) => {
          page = null;
          throw err;
        });
        return page;
      },
      where: () => (made ? { ...made.where } : null),
      release: () => {
        release?.();
        release = null;
      },
    };
  }

  /** The workspace's browser, opening one (with its settings, site data and last page) when there is none. */
  private async resolve(workspace: string): Promise<Held> {
    const record = await this.store.get(workspace);
    if (record?.session_id) return this.live(record.session_id, record.settings, record);
    return this.reopen(workspace, "", record);
  }

  /**
   * Opens a replacement for `replacing` (or a first browser) the way the last one was opened, with
   * its site data, on its last page. Another server may bind first: then act on its browser.
   */
  private async reopen(workspace: string, replacing: string, known?: WorkspaceRecord | null): Promise<Held> {
    if (replacing) this.connections.drop(replacing);
    const record = known !== undefined ? known : await this.store.get(workspace);
    const settings = { ...(record?.settings ?? {}) };
    // Recording turned off since: nobody would file that video, so the replacement is not filmed.
    if (settings.record && !this.hooks.recordings) delete settings.record;
    const opened = await this.launch(
      workspace,
      settings,
      recordUrl(record ?? emptyRecord()) || undefined,
      record?.site_data,
    );
    // An admin ended the workspace while this browser opened: it is not the workspace's.
    if (this.running.get(workspace)?.signal.aborted) {
      this.connections.drop(opened.id);
      await this.grid.end(opened.id).catch(() => undefined);
      throw unavailable("an admin ended this workspace's browser while the call ran: retry the call");
    }
    const now = this.now();
    let bound = opened.id;
    await this.bindOrQuit(workspace, opened.id, (cur) => {
      const base = cur ?? emptyRecord();
      if (base.session_id && base.session_id !== replacing) {
        bound = base.session_id;
        return base;
      }
      bound = opened.id;
      return {
        ...at(base, [opened.url], now, this.store.ttl),
        session_id: opened.id,
        opened_at: now,
        settings,
        reopened: opened.report ? { browser: opened.id, report: opened.report } : {},
      };
    });
    if (bound !== opened.id) {
      this.connections.drop(opened.id);
      await this.grid.end(opened.id);
      const winner = await this.store.get(workspace);
      return this.live(bound, winner?.settings ?? settings, winner);
    }
    this.expectRecording(workspace, opened.id, settings);
    return this.live(opened.id, settings);
  }

  /**
   * The write that makes a browser this server opened the workspace's, fenced by the call's lease.
   * When it fails (a stale lease, the store down) the browser belongs to nobody: it is quit.
   */
  private async bindOrQuit(workspace: string, id: string, fn: UpdateFn): Promise<void> {
    try {
      await this.store.update(workspace, fn, this.fenceOf(workspace));
    } catch (err) {
      this.connections.drop(id);
      await this.grid.end(id).catch(() => undefined);
      throw err;
    }
  }

  /** Opens a browser, restores site data into it, then goes to its first page. */
  private async launch(
    workspace: string,
    settings: BrowserSettings,
    url: string | undefined,
    siteData: SiteData | null | undefined,
  ): Promise<Launched> {
    const { id } = await this.grid.open(openOptions(workspace, settings));
    const browser = this.live(id, settings);
    try {
      let report: SiteDataReport | null = null;
      if (siteData && this.hooks.restorable?.(siteData)) {
        if (settings.insecure) {
          report = { restored: [], skipped: [{ reason: INSECURE_SKIP }], uri: SITE_DATA_URI };
        } else if (this.hooks.restore) {
          report = await this.hooks.restore(browser, siteData);
          if (!report.restored?.length && !report.skipped?.length) report = null;
        }
      }
      if (!url) return { id, url: "about:blank", title: "", report };
      const page = await browser.page();
      try {
        await page.goto(url);
      } catch (err) {
        if (isNoSuchSession(err)) throw err;
        // A slow or broken first page does not undo the open; the result says where it is.
        log.warn(`workspace ${workspace}: the first page did not load cleanly`);
      }
      const state = await page.state();
      return { id, url: state.url, title: state.title, report };
    } catch (err) {
      this.connections.drop(id);
      await this.grid.end(id).catch(() => undefined);
      throw err;
    } finally {
      browser.release();
    }
  }

  private expectRecording(workspace: string, gridId: string, settings: BrowserSettings): string | null {
    if (!settings.record || !this.hooks.recordings) return null;
    return this.hooks.recordings.expect(workspace, gridId, settings.browser ?? "chrome");
  }

  /** Finishes a page call: one write for history, TTL, reopen report, window and the action's changes. */
  private async settle(
    workspace: string,
    raw: AnyRecord,
    browser: string,
    reshapes: boolean,
    state: CallState,
  ): Promise<AnyRecord> {
    // The last line of defence for secrets: whatever an action returns or lands on, a page that
    // carries a secret value is never recorded and the value never reaches the caller.
    // (Unit tests may bind services without a catalogue.)
    const catalogue = this.services?.secrets as ActionServices["secrets"] | undefined;
    const values = catalogue ? secretValuesOf(catalogue) : [];
    const safe = (url: string | null) => (url && values.some((v) => taints(url, v)) ? null : url);
    const landed = safe(
      state.landed !== undefined ? state.landed : typeof raw.url === "string" ? raw.url : null,
    );
    const pages = state.pages?.map(safe);
    const now = this.now();
    let told: SiteDataReport | null = null;
    await this.store.update(
      workspace,
      (cur) => {
        told = null;
        // A result from a browser the record no longer names moves nothing; the write still slides the TTL.
        if (!cur || cur.session_id !== browser) {
          for (const change of state.changes) stale(change);
          return cur;
        }
        told = reportFor(cur, browser);
        let next = delivered(at(cur, pages ?? [landed], now, this.store.ttl));
        if (reshapes) next = reshaped(next, raw as { width?: number; height?: number });
        for (const change of state.changes) next = change(next, browser) ?? next;
        return next;
      },
      this.fenceOf(workspace),
    );
    // Hidden after the write: a change may still fill the result in (save_site_data's receipt).
    const result = hideValuesDeep(values, raw);
    return told ? { ...result, site_data: told } : result;
  }

  /** open_session: replaces the workspace's browser. Call inside `run` (it holds the lease). */
  async openBrowser(workspace: string, req: OpenRequest): Promise<OpenResult> {
    const previous = await this.store.get(workspace);
    const settings = resolveSettings(req, previous?.settings ?? {});
    if (settings.record && !this.hooks.recordings) throw badInput(RECORDING_OFF, "record");
    if (previous?.session_id) await this.endGridBrowser(previous.session_id);
    const restore = req.restore_site_data !== false;
    const saved = previous?.site_data ?? {};
    const url = req.url ?? (req.fresh ? undefined : recordUrl(previous ?? emptyRecord()) || undefined);
    const opened = await this.launch(workspace, settings, url, restore ? saved : null);
    const now = this.now();
    let forgotten = 0;
    await this.bindOrQuit(workspace, opened.id, (cur) => {
      const base = cur ?? emptyRecord();
      let next: WorkspaceRecord = {
        ...at(base, [opened.url], now, this.store.ttl),
        session_id: opened.id,
        opened_at: now,
        settings,
        reopened: {},
      };
      forgotten = 0;
      // Forget only the snapshot this open saw (or what a Forget left of it): a save that landed
      // meanwhile is not ours to erase.
      if (!restore && siteDataWithin(base.site_data, saved)) {
        forgotten = this.hooks.siteDataSummary?.(base.site_data)?.sites ?? 0;
        next = withSiteData(next, {});
      }
      return next;
    });
    const recordingError = this.expectRecording(workspace, opened.id, settings);
    const out: OpenResult = {
      url: opened.url,
      title: opened.title,
      browser: settings.browser ?? "chrome",
      width: settings.width ?? DEFAULT_WIDTH,
      height: settings.height ?? DEFAULT_HEIGHT,
      settings,
      recording: settings.record === true,
    };
    if (recordingError) out.recording_error = recordingError;
    if (!restore && forgotten > 0) out.site_data = { forgotten };
    else if (opened.report) out.site_data = opened.report;
    return out;
  }

  /** end_browser: quits the browser; history and site data stay. Call inside `run`. */
  endBrowser(workspace: string): Promise<{ ended: boolean }> {
    return this.endNow(workspace, this.fenceOf(workspace));
  }

  private async endNow(
    workspace: string,
    opts: { waitMs?: number; fence?: LeaseFence },
  ): Promise<{ ended: boolean }> {
    const record = await this.store.get(workspace);
    const id = record?.session_id;
    if (!id) return { ended: false };
    const ending = this.endGridBrowser(id);
    if (opts.waitMs === undefined) await ending;
    else await Promise.race([ending, Bun.sleep(opts.waitMs)]);
    await this.store.update(workspace, (cur) => (cur && cur.session_id === id ? detached(cur) : cur), {
      fence: opts.fence,
    });
    return { ended: true };
  }

  private async endGridBrowser(id: string): Promise<void> {
    this.connections.drop(id);
    try {
      await this.grid.end(id);
    } catch (err) {
      log.warn(`ending a browser failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.hooks.recordings?.ended(id);
    }
  }

  // The title the page shows now ("" when it cannot tell, or a dialog is open).
  private async title(record: WorkspaceRecord): Promise<string> {
    const browser = this.live(record.session_id, record.settings, record);
    try {
      return (await (await browser.page()).state()).title;
    } catch {
      return "";
    } finally {
      browser.release();
    }
  }

  /** workspace://current. Never opens a browser. */
  async describe(workspace: string): Promise<Describe> {
    const record = await this.store.get(workspace);
    const settings = record?.settings ?? {};
    const live = record?.session_id ? await this.grid.alive(record.session_id) : false;
    const out: Describe = {
      live,
      url: record ? recordUrl(record) || null : null,
      settings,
      recording: live && settings.record === true,
    };
    if (live && record) {
      // Shown, not trusted: a title that carries a typed secret reads [hidden], as in results.
      const catalogue = this.services?.secrets as ActionServices["secrets"] | undefined;
      const title = await this.title(record);
      out.title = catalogue
        ? (hideValuesDeep(secretValuesOf(catalogue), { title }) as { title: string }).title
        : title;
    }
    const summary = record ? this.hooks.siteDataSummary?.(record.site_data) : null;
    if (summary) out.site_data = summary;
    return out;
  }
}
