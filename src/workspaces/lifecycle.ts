// A workspace's browser lifecycle: open (open_session), reopen (a reaped one, or the first, as the
// last was opened), replace, and end. Each write that binds a browser is fenced by the call's lease;
// a browser that could not be bound is quit.

import type { LiveBrowser } from "../actions/action.ts";
import { SITE_DATA_URI } from "../actions/fields.ts";
import type { OpenRequest, OpenResult } from "../actions/shapes.ts";
import { DEFAULT_HEIGHT, DEFAULT_WIDTH } from "../actions/shapes.ts";
import { type AppError, badInput, unavailable } from "../errors.ts";
import { checkScheme } from "../grid/page.ts";
import { refusalText } from "../grid/policy.ts";
import type { Grid } from "../grid/webdriver.ts";
import { isNoSuchSession } from "../grid/webdriver-errors.ts";
import type { Log } from "../log.ts";
import {
  at,
  type BrowserSettings,
  detached,
  emptyRecord,
  recordUrl,
  type SiteData,
  type SiteDataReport,
  siteDataWithin,
  type WorkspaceRecord,
  withSiteData,
} from "../store/record.ts";
import type { LeaseFence, RecordStore } from "../store/types.ts";
import { type Updated, updateWith } from "../store/update.ts";
import type { Browsers, CallBrowser, Unready } from "./browsers.ts";
import { changeInPlace, type InPlace, inPlace } from "./in-place.ts";
import { endOrphansOf, type Quit, quitBrowser } from "./orphans.ts";
import { openOptions, resolveSettings } from "./settings.ts";
import { applyViewport, type Viewport } from "./viewport.ts";

/** What ending the workspace's browser did: `ended` only when the Grid confirmed it (or it was gone). */
export interface EndResult {
  ended: boolean;
  /** Why not, when there was a browser to end. */
  reason?: string;
}

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
}

interface Launched {
  id: string;
  url: string;
  title: string;
  report: SiteDataReport | null;
  viewport: Viewport | null;
  /** The message of a dialog the first page opened as it loaded. */
  dialog?: string;
}

export interface LifecycleNeeds {
  log: Pick<Log, "info" | "warn">;
  store: RecordStore;
  grid: Grid;
  now: () => number;
  hooks: ManagerHooks;
  browsers: Browsers;
}

/**
 * The call a piece of work belongs to, handed down with it: its lease's fence (its writes go through
 * it) and its stop signal (an admin's End). A call stopped by End keeps its own, broken, fence, so it
 * never writes with the next call's. Outside a call (an admin's End) there is neither.
 */
export interface Turn {
  fence?: LeaseFence;
  stop?: AbortSignal;
}

export class Lifecycle {
  private readonly store: RecordStore;
  private readonly grid: Grid;
  private readonly now: () => number;
  private readonly hooks: ManagerHooks;
  private readonly browsers: Browsers;
  private readonly log: LifecycleNeeds["log"];
  /** Workspaces whose last browser's channel died: their next browser follows no console. */
  private readonly quietNext = new Set<string>();

  constructor(deps: LifecycleNeeds) {
    this.store = deps.store;
    this.grid = deps.grid;
    this.now = deps.now;
    this.hooks = deps.hooks;
    this.browsers = deps.browsers;
    this.log = deps.log;
  }

  /** The workspace's browser for a call: the record's, ready (browsers.ts `forCall`), else `replace`'s. */
  async resolve(workspace: string, turn: Turn): Promise<CallBrowser> {
    const record = await this.store.get(workspace);
    const browser = await this.browsers.forCall(record);
    return typeof browser === "string" ? this.replace(workspace, browser, record, turn) : browser;
  }

  /**
   * A browser for a call whose record names none (opened with its settings, site data and last page),
   * or one that cannot serve it (`why`, from `forCall`): ended, and replaced before the call.
   */
  async replace(workspace: string, why: Unready, record: WorkspaceRecord | null, turn: Turn) {
    const id = record?.session_id;
    if (why === "none" || !id)
      return this.reopen(workspace, "", turn, record, { quiet: this.quietNext.delete(workspace) });
    // A browser whose channel died (found so by an earlier call): ended, and replaced before the call.
    if (why === "dead") {
      this.log.warn(`workspace ${workspace}: its browser's BiDi channel died; replacing it`);
      // Reaped meanwhile, it was not a page that broke it: the replacement follows the console.
      const quiet = await this.grid.alive(id).catch(() => true);
      await this.endGridBrowser(id);
      return this.reopen(workspace, id, turn, record, { quiet });
    }
    // A browser whose page stopped answering, and still does not: it counts as gone, and is ended.
    this.log.info(`workspace ${workspace}: its browser stopped answering; replacing it`);
    await this.endGridBrowser(id);
    return this.reopen(workspace, id, turn, record);
  }

  /** The browser the record names now, as a call takes it; null when it names none. */
  async current(workspace: string): Promise<CallBrowser | null> {
    const record = await this.store.get(workspace);
    return record?.session_id ? this.browsers.live(record.session_id, record.settings, record) : null;
  }

  /**
   * Opens a replacement for `replacing` (or a first browser) the way the last one was opened, with
   * its site data, on its last page. Another server may bind first: then act on its browser.
   */
  async reopen(
    workspace: string,
    replacing: string,
    turn: Turn,
    known?: WorkspaceRecord | null,
    opts: { quiet?: boolean } = {},
  ): Promise<CallBrowser> {
    const since = performance.now();
    if (replacing) this.browsers.connections.drop(replacing);
    const record = known !== undefined ? known : await this.store.get(workspace);
    const settings = { ...(record?.settings ?? {}) };
    // Recording turned off since: nobody would file that video, so the replacement is not filmed.
    if (settings.record && !this.hooks.recordings) delete settings.record;
    const owned = record?.session_id && record.session_id !== replacing ? [record.session_id] : [];
    await endOrphansOf(this.orphanPorts, workspace, owned);
    const opened = await this.launch(
      workspace,
      settings,
      recordUrl(record ?? emptyRecord()) || undefined,
      record?.site_data,
      { quiet: opts.quiet === true, since },
    );
    // An admin ended the workspace while this browser opened: it is not the workspace's.
    if (turn.stop?.aborted) {
      this.browsers.connections.drop(opened.id);
      await this.grid.end(opened.id).catch(() => undefined);
      throw unavailable("an admin ended this workspace's browser while the call ran: retry the call");
    }
    const now = this.now();
    const bound = await this.bindOrQuit(workspace, opened.id, turn, (cur) => {
      const base = cur ?? emptyRecord();
      if (base.session_id && base.session_id !== replacing) return { record: base, value: base.session_id };
      const record: WorkspaceRecord = {
        ...at(base, [opened.url], now, this.store.ttl),
        session_id: opened.id,
        opened_at: now,
        settings,
        reopened: opened.report ? { browser: opened.id, report: opened.report } : {},
      };
      return { record, value: opened.id };
    });
    if (bound !== opened.id) {
      this.browsers.connections.drop(opened.id);
      await this.grid.end(opened.id);
      const winner = await this.store.get(workspace);
      return this.browsers.live(bound, winner?.settings ?? settings, winner);
    }
    this.expectRecording(workspace, opened.id, settings);
    return this.browsers.live(opened.id, settings);
  }

  /**
   * The write that makes a browser this server opened the workspace's, fenced by the call's lease.
   * When it fails (a stale lease, the store down) the browser belongs to nobody: it is quit.
   * Resolves to what `fn` answered beside the record it wrote.
   */
  private async bindOrQuit<T>(
    workspace: string,
    id: string,
    turn: Turn,
    fn: (current: WorkspaceRecord | null) => Updated<T>,
  ): Promise<T> {
    try {
      return (await updateWith(this.store, workspace, fn, { fence: turn.fence })).value;
    } catch (err) {
      this.browsers.connections.drop(id);
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
    opts: { quiet?: boolean; since: number },
  ): Promise<Launched> {
    const { id } = await this.grid.open(
      openOptions(workspace, settings, this.browsers.proxyOf(settings)?.server),
      opts.since,
    );
    // It replaces a browser whose channel a page's console killed: this one follows no console.
    if (opts.quiet) this.browsers.connections.quiet(id);
    const browser = this.browsers.live(id, settings);
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
      const viewport = settings.viewport ? await applyViewport(browser, settings.viewport) : null;
      if (!url) return { id, url: "about:blank", title: "", report, viewport };
      const page = await browser.page();
      try {
        await page.goto(url);
      } catch (err) {
        if (isNoSuchSession(err)) throw err;
        // A slow or broken first page does not undo the open; the result says where it is.
        this.log.warn(`workspace ${workspace}: the first page did not load cleanly`);
      }
      const state = await page.state();
      const dialog = page.prompt?.message;
      return {
        id,
        url: state.url,
        title: state.title,
        report,
        viewport,
        ...(dialog !== undefined ? { dialog } : {}),
      };
    } catch (err) {
      this.browsers.connections.drop(id);
      await this.grid.end(id).catch(() => undefined);
      throw err;
    } finally {
      browser.release();
    }
  }

  /**
   * A call found its browser's BiDi channel dead: the browser is ended (classic WebDriver, at most
   * 5 s) and the record names none, so the next call replaces it as after a reap (site data
   * restored, the last page reopened), with one that follows no console (chromedriver's channel
   * dies on some console output). Answers the error the call ends with, saying what happened.
   */
  async endDead(workspace: string, id: string, turn: Turn): Promise<AppError> {
    this.log.warn(`workspace ${workspace}: its browser's BiDi channel died; ending it`);
    await this.endGridBrowser(id);
    this.quietNext.add(workspace);
    const record = await this.store
      .update(workspace, (cur) => (cur && cur.session_id === id ? detached(cur) : null), {
        fence: turn.fence,
      })
      .catch(() => null);
    const url = record ? recordUrl(record) : "";
    return unavailable(
      `the browser stopped answering (its BiDi channel died: chromedriver does that on some console output, such as text with unpaired UTF-16 surrogates), so it was ended; the next call opens a fresh one${url ? ` on ${url}` : ""} with the saved site data, which follows no console messages: check the page there, then retry the call if it is still to be done`,
    );
  }

  private expectRecording(workspace: string, gridId: string, settings: BrowserSettings): string | null {
    if (!settings.record || !this.hooks.recordings) return null;
    return this.hooks.recordings.expect(workspace, gridId, settings.browser ?? "chrome");
  }

  /** open_session: replaces the workspace's browser. Call in the workspace's turn (it holds the lease). */
  async open(workspace: string, req: OpenRequest, turn: Turn): Promise<OpenResult> {
    const since = performance.now();
    // An explicit open starts a browser that follows the console again.
    this.quietNext.delete(workspace);
    // A first page navigate would refuse is refused here too, before any browser is opened.
    if (req.url !== undefined) checkScheme(req.url, this.browsers.schemes);
    const previous = await this.store.get(workspace);
    const settings = resolveSettings(req, previous?.settings ?? {});
    const refused = req.url !== undefined ? this.browsers.policyOf(settings)?.refusal(req.url) : null;
    this.browsers.proxyOf(settings); // a proxy secret that names none is a 400 before any browser
    if (refused) throw badInput(`url: ${refusalText(refused)}`, "url");
    if (settings.record && !this.hooks.recordings) throw badInput(RECORDING_OFF, "record");
    // Only routes, offline or emulate: the live browser takes them in place.
    const change = previous?.session_id ? inPlace(req, previous.settings, settings) : null;
    if (change && previous?.session_id) return this.change(workspace, previous.session_id, change, turn);
    const ending = previous?.session_id ? [previous.session_id] : [];
    for (const id of ending) await this.endGridBrowser(id);
    await endOrphansOf(this.orphanPorts, workspace, ending);
    const restore = req.restore_site_data !== false;
    const saved = previous?.site_data ?? {};
    const url = req.url ?? (req.fresh ? undefined : recordUrl(previous ?? emptyRecord()) || undefined);
    const opened = await this.launch(workspace, settings, url, restore ? saved : null, { since });
    const now = this.now();
    const forgotten = await this.bindOrQuit(workspace, opened.id, turn, (cur) => {
      const base = cur ?? emptyRecord();
      let next: WorkspaceRecord = {
        ...at(base, [opened.url], now, this.store.ttl),
        session_id: opened.id,
        opened_at: now,
        settings,
        reopened: {},
      };
      // Forget only the snapshot this open saw (or what a Forget left of it): a save that landed
      // meanwhile is not ours to erase.
      if (!restore && siteDataWithin(base.site_data, saved)) {
        const sites = this.hooks.siteDataSummary?.(base.site_data)?.sites ?? 0;
        next = withSiteData(next, {});
        return { record: next, value: sites };
      }
      return { record: next, value: 0 };
    });
    const recordingError = this.expectRecording(workspace, opened.id, settings);
    const out: OpenResult = {
      // The first page opened a dialog as it loaded: said as navigate says it.
      ...(opened.dialog !== undefined
        ? { url: "", title: "", dialog: opened.dialog }
        : { url: opened.url, title: opened.title }),
      browser: settings.browser ?? "chrome",
      width: settings.width ?? DEFAULT_WIDTH,
      height: settings.height ?? DEFAULT_HEIGHT,
      ...(opened.viewport ? { viewport: opened.viewport } : {}),
      settings,
      recording: settings.record === true,
    };
    if (recordingError) out.recording_error = recordingError;
    if (!restore && forgotten > 0) out.site_data = { forgotten };
    else if (opened.report) out.site_data = opened.report;
    return out;
  }

  /** open_session with only routes, offline or emulate (in-place.ts). */
  private change(workspace: string, id: string, c: InPlace, turn: Turn): Promise<OpenResult> {
    const write = (to: BrowserSettings) =>
      this.store.update(workspace, (cur) => (cur && cur.session_id === id ? { ...cur, settings: to } : cur), {
        fence: turn.fence,
      });
    return changeInPlace(c, write, () => this.resolve(workspace, turn));
  }

  /**
   * Quits the workspace's browser and detaches it from the record; history and site data stay.
   * `waitMs`: answer after that long even if the Grid has not answered yet (it goes on). Ended only
   * when the Grid confirmed it; a browser the Grid never got the end of is tagged as the workspace's,
   * and no record names it now: the next open for the workspace, or the orphan sweep, ends it.
   */
  async end(workspace: string, opts: { waitMs?: number; fence?: LeaseFence }): Promise<EndResult> {
    const record = await this.store.get(workspace);
    const id = record?.session_id;
    // None named: one the record lost (flushed, expired) may still run, tagged as the workspace's.
    if (!id) return { ended: (await endOrphansOf(this.orphanPorts, workspace, [])) > 0 };
    const quit = await this.endGridBrowser(id, opts.waitMs);
    await this.store.update(workspace, (cur) => (cur && cur.session_id === id ? detached(cur) : cur), {
      fence: opts.fence,
    });
    return "why" in quit ? { ended: false, reason: quit.why } : { ended: true };
  }

  /** What the orphan ending of a call's turn works with. */
  private get orphanPorts() {
    return { grid: this.grid, quit: (id: string) => this.endGridBrowser(id), log: this.log };
  }

  /** Quits the browser (quitBrowser): what the Grid answered, or why there was no answer. */
  endGridBrowser(id: string, waitMs?: number): Promise<Quit> {
    const { grid, log } = this;
    const ended = (gone: string) => this.hooks.recordings?.ended(gone);
    return quitBrowser({ grid, connections: this.browsers.connections, ended, log }, id, waitMs);
  }
}
