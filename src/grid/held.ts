// One BiDi connection to a live browser, held by the server (docs/architecture.md: held connection;
// held-pool.ts keeps one per browser). Each follows the browser's dialogs and navigations, which page
// work needs to know about (a gesture that opens an alert never answers until the alert is handled),
// and closes after an idle time.

import type { BrowsingContext, Script } from "webdriver-bidi-protocol";
import type { BidiSocket, EventName } from "./bidi.ts";
import { PagesElsewhere } from "./elsewhere.ts";
import { CONSOLE, EventRing, LOGGED } from "./event-log.ts";
import { HINT_CHANNEL, HintRelay } from "./hint-relay.ts";
import { type Interceptor, releaseOrphan } from "./net-rules.ts";
import { addPreload } from "./page-call.ts";
import { DialogOpened } from "./page-dialogs.ts";
import { Quiet } from "./quiet.ts";
import { ReachedDocs } from "./reached.ts";

/** Closed after this long without a call (a live call keeps its connection). */
export const IDLE_MS = 5 * 60_000;
const [PRELOAD_MS, LATE_PRELOAD_MS] = [2_000, 120_000];

/** The most frames whose parents a connection keeps. */
const MAX_FRAMES = 10_000;

// What every held connection follows, for the whole browser.
const FOLLOWED: EventName[] = [
  "browsingContext.userPromptOpened",
  "browsingContext.userPromptClosed",
  "browsingContext.navigationStarted",
  "browsingContext.navigationAborted",
  "browsingContext.navigationFailed",
  "browsingContext.downloadWillBegin",
  "browsingContext.navigationCommitted",
  "browsingContext.fragmentNavigated",
  "browsingContext.load",
  "browsingContext.domContentLoaded",
  "browsingContext.contextCreated",
  "browsingContext.contextDestroyed",
  "network.responseStarted",
  "script.message",
  ...LOGGED,
];

/** A navigation of one context, as its events tell it. */
interface Navigation {
  id: string | null;
  url: string;
  /** Set once it loaded, failed, was aborted or turned into a download. */
  done: boolean;
  /** Set once its document is interactive (DOMContentLoaded), or it is done. */
  interactive: boolean;
  /** Calls waiting for it to be done. */
  waiters: Array<() => void>;
}

export class HeldConnection {
  /** What leaves the browser while a bound write's value is in its page: screens and logs held. */
  readonly quiet = new Quiet();
  /** Open dialogs, by top-level context. */
  readonly prompts = new Map<string, BrowsingContext.UserPromptOpenedParameters>();
  /** Tabs known to take scripts (see Page.usable). */
  readonly usable = new Set<string>();
  /** A page of this browser did not take even a trivial script (a busy loop): see page-stuck.ts. */
  get stuck(): boolean {
    return this.stuckNow;
  }
  set stuck(on: boolean) {
    if (on) this.stuckMarks++;
    this.stuckNow = on;
  }
  private stuckNow = false;
  /** How often `stuck` was set: a late preload clears only the mark it made itself. */
  private stuckMarks = 0;
  /**
   * The tab this server last brought to the front, null when it is not known (a new tab took the
   * front since): Chromium's input.performActions never answers in a tab behind another.
   */
  activeTab: string | null = null;
  private readonly navigations = new Map<string, Navigation>();
  /** The HTTP status of each context's current document, from its navigation's response. */
  readonly documentStatus = new Map<string, number>();
  private readonly promptWaiters = new Set<
    (p: BrowsingContext.UserPromptOpenedParameters, top: string) => void
  >();
  /** Each frame's parent context, as the browser told it: a frame's dialog is its tab's. */
  private readonly parents = new Map<string, string>();
  /** Top-level pages loaded in the tabs, for the history (elsewhere.ts). */
  readonly pages: PagesElsewhere;
  /** The outline's hints from the page's own world, on their way to the sandbox (hint-relay.ts). */
  readonly hints: HintRelay;
  /** Tabs a page opened so far, and the last of them: a gesture that opened one says so. */
  popups = 0;
  lastPopup: string | null = null;
  /** The tab each of those was opened from: where a pop-up that closes itself hands the agent back. */
  readonly openers = new Map<string, string>();
  /** The browser's network rules, answered over this connection (null: none, nothing intercepted). */
  net: Interceptor | null = null;
  /** Counts navigations started, so a caller can tell whether one began since it looked. */
  private started = 0;
  private users = 0;
  private idle: ReturnType<typeof setTimeout> | null = null;

  constructor(
    readonly socket: BidiSocket,
    private readonly onIdle: () => void,
    private readonly idleMs: number,
    /** What the browser's pages reported (console, network); outlives the connection. */
    readonly logs: EventRing = new EventRing(),
    /** Which documents the agent's scripts may have reached; outlives the connection. */
    readonly reached: ReachedDocs = new ReachedDocs(),
  ) {
    logs.feed(socket, this.quiet);
    this.pages = new PagesElsewhere(socket);
    // Hints go only to a tab known to take scripts (a same-origin pop-up Chromium leaves unanswered
    // would wedge on them: see Page.usable), and wait while it shows a dialog or a page is stuck.
    this.hints = new HintRelay(socket, (c) => {
      const tab = this.topOf(c);
      return this.prompts.has(tab) || !this.usable.has(tab) || this.stuck;
    });
    // Chromium names the frame whose script opened a dialog; the dialog holds the whole tab, and
    // ends each command sent to it that said so (a page port's: it would not answer until then).
    socket.on("browsingContext.userPromptOpened", null, (p) => {
      const top = this.topOf(p.context);
      this.prompts.set(top, p);
      for (const w of [...this.promptWaiters]) w(p, top);
      socket.end([top, p.context], new DialogOpened(p));
    });
    socket.on("browsingContext.userPromptClosed", null, (p) => {
      this.prompts.delete(this.topOf(p.context));
      this.hints.kick();
    });
    socket.on("browsingContext.navigationStarted", null, (p) => this.navStarted(p));
    socket.on("browsingContext.contextDestroyed", null, (p) => reached.destroyed(p.context));
    // Requests an earlier connection's intercept holds, on a browser that has no rules now.
    socket.on("network.beforeRequestSent", null, (p) => {
      if (!this.net && p.isBlocked) releaseOrphan(socket, p);
    });
    socket.on("browsingContext.contextCreated", null, (p) => {
      reached.created(p);
      if (p.parent) this.knowParent(p.context, p.parent);
      else {
        this.activeTab = null;
        // A page opened it (a pop-up, a link to a new tab); the server's own tabs have no opener.
        if (p.originalOpener) {
          this.popups++;
          this.lastPopup = p.context;
          if (this.openers.size >= MAX_FRAMES)
            this.openers.delete(this.openers.keys().next().value as string);
          this.openers.set(p.context, this.topOf(p.originalOpener));
        }
      }
    });
    // The navigation's own request is the document's (the last of a redirect chain wins).
    socket.on("network.responseStarted", null, (p) => {
      if (p.context && p.navigation) this.documentStatus.set(p.context, p.response.status);
    });
    // A page restored from the back-forward cache commits under its first navigation's id and never
    // loads again; a same-document step never loads either.
    socket.on("browsingContext.navigationCommitted", null, (p) => {
      reached.committed(p.context, p.navigation, p.url);
      const n = this.navigations.get(p.context);
      if (n && p.navigation && n.id && p.navigation !== n.id) this.navDone({ ...p, navigation: n.id });
    });
    socket.on("browsingContext.fragmentNavigated", null, (p) => this.navDone({ ...p, navigation: null }));
    socket.on("browsingContext.domContentLoaded", null, (p) => {
      const n = this.navigations.get(p.context);
      if (!n || n.done || (p.navigation && n.id && p.navigation !== n.id)) return;
      n.interactive = true;
      for (const w of n.waiters.splice(0)) w();
    });
    for (const done of [
      "browsingContext.load",
      "browsingContext.navigationAborted",
      "browsingContext.navigationFailed",
      "browsingContext.downloadWillBegin",
    ] as const) {
      socket.on(done, null, (p) => this.navDone(p));
    }
  }

  /**
   * Subscribes to what the connection follows and installs `preloads` in every new document (the
   * page library in the sandbox, the hint recorder in the page's world); a fresh connection does this
   * before any use. Returns the preload scripts' ids.
   */
  async follow(
    preloads: Script.AddPreloadScriptParameters[],
    late: (scripts: string[]) => void = () => undefined,
    /** false: the console is not followed (its output broke a browser's channel before). */
    console = true,
  ): Promise<string[] | null> {
    this.hints.recording = preloads.some((p) => p.arguments?.some((a) => a.value.channel === HINT_CHANNEL));
    // Adding a preload script waits on every open document, so a stuck one would keep the connection
    // from opening: past PRELOAD_MS it goes on without (page calls bring the library themselves).
    const adding = preloads.length
      ? Promise.all(
          preloads.map((p) =>
            addPreload(this.socket, p, { timeoutMs: LATE_PRELOAD_MS }).then((r) => r.script),
          ),
        )
      : null;
    adding?.catch(() => undefined);
    await Promise.all([
      this.socket.subscribe(console ? FOLLOWED : FOLLOWED.filter((e) => e !== CONSOLE)),
      // The tabs and frames already open, whose creation the connection did not see.
      this.socket
        .send("browsingContext.getTree", {})
        .then((t) => {
          this.pages.knowRoots(t?.contexts ?? []);
          this.reached.known(t?.contexts ?? []);
          const walk = (cs: BrowsingContext.Info[] | null | undefined) => {
            for (const c of cs ?? []) {
              for (const child of c.children ?? []) this.knowParent(child.context, c.context);
              walk(c.children);
            }
          };
          walk(t?.contexts);
        })
        .catch(() => undefined),
    ]);
    if (!adding) return null;
    const got = await Promise.race([adding, Bun.sleep(PRELOAD_MS).then(() => null)]);
    if (got === null) {
      this.stuck = true;
      const mark = this.stuckMarks;
      // Taken by every document after all: a slow browser (a loaded machine), not a stuck page.
      adding.then(
        (scripts) => {
          if (this.stuckMarks === mark) this.stuck = false;
          late(scripts);
        },
        () => undefined,
      );
    }
    return got;
  }

  get closed(): boolean {
    return this.socket.closed;
  }

  /** How many navigations began so far (compare two readings). */
  get navigationCount(): number {
    return this.started;
  }

  /** A screen being drawn: a bound write's hold waits for it (quiet.ts). */
  drawn<T>(capture: Promise<T>): Promise<T> {
    return this.quiet.drawn(capture);
  }

  /** Whether a bound write is under way: no screen is drawn while one is. */
  get writing(): boolean {
    return this.quiet.writing;
  }

  /**
   * Resolves once `context` has no navigation under way (or, with `interactive`, none whose
   * document is not interactive yet), or after `ms`; true when it is over.
   */
  navigationOver(context: string, ms: number, interactive = false): Promise<boolean> {
    return this.overBy(context, Date.now() + ms, interactive);
  }

  private overBy(context: string, deadline: number, interactive: boolean): Promise<boolean> {
    const n = this.navigations.get(context);
    if (!n || n.done || (interactive && n.interactive)) return Promise.resolve(true);
    if (Date.now() >= deadline) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        n.waiters = n.waiters.filter((w) => w !== done);
        resolve(false);
      }, deadline - Date.now());
      const done = () => {
        clearTimeout(timer);
        // A redirect or a script may start the next one at once: wait for that too.
        resolve(this.overBy(context, deadline, interactive));
      };
      n.waiters.push(done);
    });
  }

  /** The tab a context is in (itself for a tab, or one the connection never saw made). */
  topOf(context: string): string {
    let at = context;
    for (let i = 0; i < 64; i++) {
      const up = this.parents.get(at);
      if (!up) break;
      at = up;
    }
    return at;
  }

  private knowParent(context: string, parent: string): void {
    // Frames come and go all day: the oldest are forgotten past a bound (a dialog of one opens now).
    if (this.parents.size >= MAX_FRAMES) {
      for (const k of [...this.parents.keys()].slice(0, MAX_FRAMES / 10)) this.parents.delete(k);
    }
    this.parents.set(context, parent);
  }

  /** Forgets a dialog answered here (its closed event may come a moment later). */
  promptAnswered(p: BrowsingContext.UserPromptOpenedParameters): void {
    const top = this.topOf(p.context);
    if (this.prompts.get(top) === p) this.prompts.delete(top);
  }

  /** Resolves with the first dialog that opens in one of `contexts` (its tab's, or its own) while `work` runs. */
  async racePrompt<T>(
    contexts: (c: string) => boolean,
    work: Promise<T>,
  ): Promise<{ done: T } | { prompt: BrowsingContext.UserPromptOpenedParameters }> {
    for (const [c, p] of this.prompts) if (contexts(c)) return { prompt: p };
    let off = () => {};
    const opened = new Promise<{ prompt: BrowsingContext.UserPromptOpenedParameters }>((resolve) => {
      const w = (p: BrowsingContext.UserPromptOpenedParameters, top: string) => {
        if (contexts(top) || contexts(p.context)) resolve({ prompt: p });
      };
      this.promptWaiters.add(w);
      off = () => this.promptWaiters.delete(w);
    });
    try {
      return await Promise.race([work.then((done) => ({ done })), opened]);
    } finally {
      off();
    }
  }

  /** Marks the connection in use; the returned function gives it back. */
  use(): () => void {
    this.users++;
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      if (--this.users === 0 && !this.socket.closed) {
        this.idle = setTimeout(this.onIdle, this.idleMs);
        this.idle.unref?.();
      }
    };
  }

  close(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.socket.close();
    for (const n of this.navigations.values()) for (const w of n.waiters.splice(0)) w();
  }

  private navStarted(p: BrowsingContext.NavigationInfo): void {
    this.started++;
    this.documentStatus.delete(p.context);
    const prev = this.navigations.get(p.context);
    const waiters = prev && !prev.done ? prev.waiters : [];
    this.navigations.set(p.context, {
      id: p.navigation,
      url: p.url,
      done: false,
      interactive: false,
      waiters,
    });
  }

  private navDone(p: BrowsingContext.NavigationInfo): void {
    const n = this.navigations.get(p.context);
    // A late event of an earlier navigation does not end the current one.
    if (!n || n.done || (p.navigation && n.id && p.navigation !== n.id)) return;
    n.done = true;
    n.interactive = true;
    for (const w of n.waiters.splice(0)) w();
  }
}
