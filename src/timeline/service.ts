// The timeline capability: every call on a workspace (over MCP, REST, or as a flow step) appends one
// entry with what was asked, how it went and where the page was after, plus a screen while screens
// are on; the admin reads it newest first, watches the browser live, and keeps a run as a flow.
// An entry holds a secret as its reference and a landing URL with [hidden] where a typed value would
// show: what a caller was told, never more.
import type { AnyAction } from "../actions/action.ts";
import type { CallEnd, Recording } from "../actions/call.ts";
import type { Config } from "../config/schema.ts";
import { badInput, errorBody, messageOf, statusOf } from "../errors.ts";
import { flowText } from "../flows/schema.ts";
import type { ToolTable } from "../flows/tools.ts";
import type { Events } from "../kit/events.ts";
import { KeyedQueue } from "../kit/queue.ts";
import type { Log } from "../log.ts";
import type { Redactor } from "../secrets/redactor.ts";
import { boundedEntry, keptArgs, type NewEntry, type TimelineEntry } from "./entry.ts";
import { flowFieldsOf } from "./flow.ts";
import type { Summary, TimelineLog } from "./log.ts";
import { pageNow, pageOf, sendScreen } from "./page-after.ts";
import { LiveScreens, type Reach } from "./screens.ts";

export interface TimelineServiceNeeds extends Reach {
  config: Config;
  /** The one redactor: what an entry says leaves out every secret value. */
  redactor: Pick<Redactor, "redactDeep">;
  /** Where the entries are kept. */
  log: TimelineLog;
  /** The server's log. */
  logger: Pick<Log, "debug" | "warn">;
  /** The tools a flow step may call. */
  tools: ToolTable;
  /** Epoch seconds. */
  now: () => number;
  /** The change bus: the workspace's timeline changed (admin live updates). */
  events: Pick<Events, "changed">;
}

/** A call that changes what the page shows, so a screen after it says something. */
export function changesPage(action: AnyAction): boolean {
  return !action.annotations.readOnly && (action.browser === "page" || action.browser === "open");
}

/** How many entries a page of the admin's listing holds at most. */
export const PAGE_MAX = 200;

export class Timeline {
  readonly live: LiveScreens;
  /** Screens kept so far, and the milliseconds they took (the benchmark and tests read them). */
  screensTaken = 0;
  screenMs = 0;
  /** Each workspace's entries on their way (a call's answer does not wait for its screen). */
  private readonly pending = new KeyedQueue();
  /** The workspaces whose browser is drawing a call's screen now. */
  private readonly drawing = new Set<string>();
  /** The calls' records on their way (they follow the answers): a read waits for them. */
  private calls: Recording | null = null;

  constructor(private readonly needs: TimelineServiceNeeds) {
    this.live = new LiveScreens(needs);
  }

  /** Whether this server keeps timelines (timeline.keep above 0). */
  get on(): boolean {
    return this.needs.config.timeline.keep > 0;
  }

  /** Whether a page-changing call keeps a screen now: timeline.screens, or someone watching. */
  screensOn(workspace: string): boolean {
    return (
      this.on &&
      this.needs.log.screens &&
      (this.needs.config.timeline.screens || this.live.watched(workspace))
    );
  }

  subscribed(calls: Recording): void {
    this.calls = calls;
  }

  /**
   * A call as it ends, in its turn, handed the browser it leaves: sends for the screen there (the
   * picture is of the page the call left, and the answer does not wait for it: the entry does), and
   * appends the entry; a failed call's entry says where the page was left (with no browser: where
   * the record says it is). Never throws.
   */
  async ended(end: CallEnd): Promise<void> {
    // A person's input landed: the live view draws now (and faster while they drive).
    if (end.surface === "person" && end.ended.ok) this.live.nudge(end.workspace);
    if (!this.on) return;
    try {
      const { picture } = await this.screenOf(end);
      // A flow's step waits for its screen: the next step would change the page under it.
      const screen = end.step ? await picture : picture;
      await this.write(end.workspace, await this.entryOf(end), screen);
    } catch (err) {
      this.needs.logger.warn(
        `workspace ${end.workspace}: a timeline entry was not written: ${messageOf(err)}`,
      );
    }
  }

  /**
   * Sends for the screen; `picture` comes once it is drawn. Wrapped, so awaiting the send never
   * waits for the picture (an async function's promise would adopt it).
   */
  private async screenOf(end: CallEnd): Promise<{ picture: Promise<Uint8Array | null> | null }> {
    const { workspace, action, browser } = end;
    // One screen at a time per workspace: calls that come faster than the browser draws go without.
    if (!browser || !changesPage(action) || !this.screensOn(workspace) || this.drawing.has(workspace))
      return { picture: null };
    this.drawing.add(workspace);
    const sent = await sendScreen(browser, this).catch(() => null);
    return {
      picture: (sent?.picture ?? Promise.resolve(null)).finally(() => this.drawing.delete(workspace)),
    };
  }

  /** The entry: what the call said (its arguments, where the page was, its error) in one pass of the redactor. */
  private async entryOf(end: CallEnd): Promise<NewEntry> {
    const { ended } = end;
    // A refused call (400) keeps a short summary of what it sent.
    const { args, cut } = keptArgs(end.args, !ended.ok && statusOf(ended.error) === 400);
    const said: { args: Record<string, unknown>; error?: string; url?: string; title?: string } = { args };
    if (!ended.ok) said.error = errorBody(ended.error).error;
    if (end.step) Object.assign(said, { url: end.step.url, title: end.step.title });
    else if (ended.ok) {
      if (typeof ended.result.url === "string") said.url = ended.result.url;
      if (typeof ended.result.title === "string") said.title = ended.result.title;
    } else if (end.browser) Object.assign(said, await pageOf(end.browser));
    else if (end.action.browser !== "none" && !end.unreached)
      Object.assign(said, await pageNow(this.needs, end.workspace));
    const { error, url, title, ...safe } = this.needs.redactor.redactDeep(said);
    const entry: NewEntry = {
      time: end.time,
      surface: end.surface,
      tool: end.action.name,
      ms: end.ms,
      args: safe.args,
      ...(cut ? { args_cut: true as const } : {}),
      status: ended.ok ? 200 : statusOf(ended.error),
    };
    if (ended.ok && !end.step && end.located?.length) entry.locators = this.locatorsOf(end.located);
    return {
      ...entry,
      ...(error !== undefined && { error }),
      ...(url !== undefined && { url }),
      ...(title !== undefined && { title }),
      ...(end.step?.return && { return: true as const }),
      ...(end.step?.flow && { flow: end.step.flow }),
    };
  }

  /**
   * Appends in call order, each entry once its screen is in (or given up on). An entry without a
   * screen on its way is written before the call's lease goes (so the servers of a group number
   * their entries in the order the calls were made); one with a screen is written when the picture is in.
   */
  private async write(
    workspace: string,
    entry: NewEntry,
    screen: Promise<Uint8Array | null> | Uint8Array | null,
  ): Promise<void> {
    const mine = this.pending.run(workspace, async () => this.append(workspace, entry, await screen));
    if (!(screen instanceof Promise)) await mine;
  }

  /** Resolves once every entry of the calls answered so far on this server is written. */
  async settled(workspace: string): Promise<void> {
    await this.calls?.recorded(workspace);
    await this.pending.idle(workspace);
  }

  /** The locators, as redacted as the arguments; one the redactor would change is not kept (none read). */
  private locatorsOf(located: NonNullable<CallEnd["located"]>): NonNullable<TimelineEntry["locators"]> {
    const { redactor } = this.needs;
    return located.map(({ selector, locator }) => {
      const safe = locator && redactor.redactDeep(locator);
      const same = safe !== null && JSON.stringify(safe) === JSON.stringify(locator);
      return { selector: redactor.redactDeep(selector), locator: same ? safe : null };
    });
  }

  private async append(workspace: string, entry: NewEntry, screen: Uint8Array | null): Promise<void> {
    try {
      // Judged at the call's own time: the write may come a moment later (after its screen).
      // None for a workspace that does not exist: a spray of names leaves no timelines behind.
      if (!(await this.needs.store.get(workspace)) && (await this.needs.log.summary(workspace)).last === 0) {
        this.needs.logger.debug(`workspace ${workspace}: no timeline entry: no such workspace`);
        return;
      }
      await this.expireIfOld(workspace, entry.time);
      await this.needs.log.append(workspace, boundedEntry(entry), screen);
      this.needs.events.changed(workspace);
    } catch (err) {
      // The call itself went as it went: a timeline that cannot be written does not fail it.
      this.needs.logger.warn(`workspace ${workspace}: a timeline entry was not written: ${messageOf(err)}`);
    }
  }

  /** A timeline lives as long as its workspace's record: past session.ttl after its newest entry it is gone. */
  private async expireIfOld(workspace: string, at = this.needs.now()): Promise<Summary> {
    const s = await this.needs.log.summary(workspace);
    if (s.newest > 0 && s.newest + this.needs.config.session.ttl < at) {
      await this.needs.log.clear(workspace, "all");
      return { entries: 0, screens: 0, last: 0, newest: 0 };
    }
    return s;
  }

  async summary(workspace: string): Promise<Summary> {
    await this.settled(workspace);
    return this.expireIfOld(workspace);
  }

  /** Every kept entry, oldest first. */
  async all(workspace: string): Promise<TimelineEntry[]> {
    await this.settled(workspace);
    const s = await this.expireIfOld(workspace);
    return s.entries ? this.needs.log.all(workspace) : [];
  }

  /** Newest first: the entries numbered below `before` (all without), at most `limit`; `next` pages on. */
  async batch(
    workspace: string,
    opts: { before?: number; limit: number },
  ): Promise<{ entries: TimelineEntry[]; next: number | null }> {
    const all = (await this.all(workspace))
      .filter((e) => opts.before === undefined || e.n < opts.before)
      .reverse();
    const entries = all.slice(0, opts.limit);
    const next = all.length > opts.limit ? (entries[entries.length - 1]?.n ?? null) : null;
    return { entries, next };
  }

  /** Writes what is on its way, then lets go of the store. */
  async close(): Promise<void> {
    await this.calls?.recorded();
    await this.pending.allIdle();
    this.needs.log.close?.();
  }

  screen(workspace: string, n: number): Promise<Uint8Array | null> {
    return this.needs.log.screen(workspace, n);
  }

  async clear(workspace: string, what: "screens" | "all"): Promise<number> {
    const n = await this.needs.log.clear(workspace, what);
    this.needs.events.changed(workspace);
    return n;
  }

  /**
   * The flow the entries make: the last `last` calls of the agent's own (a run_flow's steps come
   * with it), or the entries numbered `from` to `to`; `description` in place of where it came from.
   * A 400 when none of them can be a step, or one names by ref an element it kept no locator for.
   */
  async flowYaml(
    workspace: string,
    pick: { last: number } | { from: number; to: number },
    description?: string,
  ): Promise<string> {
    const all = await this.all(workspace);
    let start: number;
    let end = all.length;
    if ("last" in pick) {
      let calls = 0;
      start = all.length;
      while (start > 0 && calls < pick.last) {
        start--;
        if (all[start]?.surface !== "flow") calls++;
      }
    } else {
      start = all.findIndex((e) => e.n >= pick.from);
      if (start < 0) start = all.length;
      const past = all.findIndex((e) => e.n > pick.to);
      end = past < 0 ? all.length : past;
    }
    // A run_flow's steps are written before it: they come with it.
    if (all[start]?.tool === "run_flow") while (start > 0 && all[start - 1]?.surface === "flow") start--;
    const chosen = all.slice(start, Math.max(start, end));
    if (chosen.length === 0) {
      throw badInput("the timeline has no entries there: GET /admin/workspaces/{key}/timeline lists them");
    }
    const fields = flowFieldsOf(chosen, this.needs.tools, description);
    if (fields.steps.length === 0) {
      throw badInput(
        "none of those entries can be a step: a step is a call that succeeded and changed something (read-only calls, failed ones and flow tools are left out)",
      );
    }
    return flowText(fields);
  }
}
