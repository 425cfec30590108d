// The spare tab: a tab whose requests for SPARE_PATH, on any origin, are answered with a marked
// blank page, so it can stand on an origin without that site loading and read or write its
// storage (Playwright's way for storageState); and a pool of them, visiting origins side by side.
// Over BiDi only; no CDP.
import { messageOf } from "../errors.ts";
import { cores, nothing, onMarkedPage } from "../in-page/standalone.ts";
import { type BidiSocket, SANDBOX } from "./bidi.ts";
import type { NetworkEvent } from "./bidi-types.ts";

export const SPARE_MARKER = "selenium-flow-spare";
/** The smallest document that says it is ours: nothing to fetch, nothing to run. */
export const SPARE_PAGE = `<meta name=${SPARE_MARKER}>`;
/** Only this path is intercepted: a leftover intercept can never hold up a real page. */
export const SPARE_PATH = "/__selenium-flow-spare__";
export const SW_REASON = "a service worker answered: save while on this site";

/** What the spare tab needs of a BiDi socket (a fake one in unit tests). */
export type SpareBidi = Pick<BidiSocket, "send" | "on" | "subscribe" | "unsubscribe" | "logger">;

/** The page in the tab was not ours: the site's service worker answered. Nothing ran there. */
export class ServiceWorkerAnswered extends Error {
  constructor(readonly origin: string) {
    super(origin);
    this.name = "ServiceWorkerAnswered";
  }
}

/**
 * Stands on `origin` and returns what the function declaration `fn` returns there, given `arg`
 * (JSON-safe). Values travel as the argument, never in the script's text.
 */
export type SpareRun = (origin: string, fn: string, arg?: string) => Promise<unknown>;

/**
 * One sandbox call per visit: the marker check, the origin check and `fn`, as a JSON string that
 * says whose page it was. Checking the origin in the page too means a tab that did not move never
 * takes a write. The text is the same for every origin, so the browser compiles it once.
 */
export function onSpare(fn: string): string {
  return (
    `async (origin, arg) => { const at = (${String(onMarkedPage)})(${JSON.stringify(SPARE_MARKER)}); ` +
    "if (!at.spare || at.origin !== origin) return JSON.stringify(at); " +
    `return JSON.stringify({ spare: true, origin, value: await (${fn})(arg) }); }`
  );
}

const HTML: { name: string; value: { type: "string"; value: string } }[] = [
  { name: "content-type", value: { type: "string", value: "text/html" } },
];

/** A spare tab standing by; `close` tears it down and never raises. */
export interface SpareTab {
  readonly context: string;
  run: SpareRun;
  close(): Promise<void>;
}

/**
 * Opens a spare tab: a new background tab, closed by `close`. The intercept and the subscription
 * are asked for together; the handler is in place before either answers, so before any
 * navigation. A set-up that fails tears down what it made, then raises.
 */
export async function openSpareTab(bidi: SpareBidi): Promise<SpareTab> {
  const parts: Parts = { intercept: null, preload: null, subscription: null, off: null, tab: null };
  try {
    const context = (await bidi.send("browsingContext.create", { type: "tab", background: true })).context;
    parts.tab = context;
    const adding = bidi.send("network.addIntercept", {
      phases: ["beforeRequestSent"],
      contexts: [context],
      urlPatterns: [{ type: "pattern", pathname: SPARE_PATH }],
    });
    // Only our intercept's requests are answered; its id is known before any can arrive.
    let ours: string | null = null;
    parts.off = bidi.on("network.beforeRequestSent", context, (event: NetworkEvent) => {
      if (ours) answer(bidi, event, ours);
    });
    const subscribing = bidi.subscribe(["network.beforeRequestSent"], [context]);
    // The sandbox is made with each document rather than by the first call into it, a round trip
    // into the page saved on every visit.
    const preloading = bidi.send("script.addPreloadScript", {
      functionDeclaration: String(nothing),
      sandbox: SANDBOX,
      contexts: [context],
    });
    const [added, subscribed, preloaded] = await Promise.allSettled([adding, subscribing, preloading]);
    if (added.status === "fulfilled") parts.intercept = ours = added.value.intercept;
    if (subscribed.status === "fulfilled") parts.subscription = subscribed.value;
    if (preloaded.status === "fulfilled") parts.preload = preloaded.value.script;
    for (const got of [added, subscribed, preloaded]) if (got.status === "rejected") throw got.reason;
    const run: SpareRun = async (origin, fn, arg = "") => {
      // The marked page has nothing to load: parsed is done, and its storage is reachable then.
      await bidi.send("browsingContext.navigate", { context, url: origin + SPARE_PATH, wait: "interactive" });
      const reply = await bidi.send("script.callFunction", {
        functionDeclaration: onSpare(fn),
        target: { context, sandbox: SANDBOX },
        arguments: [
          { type: "string", value: origin },
          { type: "string", value: arg },
        ],
        awaitPromise: true,
        resultOwnership: "none",
      });
      if (reply.type !== "success") throw new Error(reply.exceptionDetails?.text || "the script failed");
      const got = JSON.parse(String(reply.result.value)) as {
        spare: boolean;
        origin: string;
        value?: unknown;
      };
      if (!got.spare) throw new ServiceWorkerAnswered(origin);
      // A navigation that did not land must never be read (or written) as this origin.
      if (got.origin !== origin) throw new Error(`the spare tab is on ${got.origin}, not ${origin}`);
      return got.value;
    };
    let closing: Promise<void> | null = null;
    return { context, run, close: () => (closing ??= teardown(bidi, parts)) };
  } catch (err) {
    await teardown(bidi, parts);
    throw err;
  }
}

// Runs on the socket's event path: a refused answer shows up later as a page without the marker.
function answer(bidi: SpareBidi, event: NetworkEvent, intercept: string): void {
  if (typeof event !== "object" || event === null || event.isBlocked !== true) return;
  if (event.intercepts && !event.intercepts.includes(intercept)) return;
  const request = event.request?.request;
  if (typeof request !== "string") return;
  try {
    bidi
      .send("network.provideResponse", {
        request,
        statusCode: 200,
        reasonPhrase: "OK",
        headers: HTML,
        body: { type: "string", value: SPARE_PAGE },
      })
      .catch((err: unknown) => bidi.logger.debug(`the spare tab's answer was refused: ${messageOf(err)}`));
  } catch (err) {
    bidi.logger.debug(`the spare tab's answer was refused: ${messageOf(err)}`);
  }
}

interface Parts {
  intercept: string | null;
  preload: string | null;
  subscription: string | null;
  off: (() => void) | null;
  /** The tab, once created; teardown closes it. */
  tab: string | null;
}

// The intercept goes first and its handler only once it is gone, so no request of ours is ever
// left blocked with nobody to answer it. The tab closes and the subscription goes meanwhile: a
// request the tab still makes dies with it.
async function teardown(bidi: SpareBidi, parts: Parts): Promise<void> {
  const quietly = async (what: string, step: () => Promise<unknown> | unknown) => {
    try {
      await step();
    } catch (err) {
      bidi.logger.debug(`the spare tab could not ${what}: ${messageOf(err)}`);
    }
  };
  const { intercept, preload, subscription, off, tab } = parts;
  const unintercepted = intercept
    ? quietly("remove its intercept", () => bidi.send("network.removeIntercept", { intercept }))
    : null;
  const closed = tab ? quietly("close", () => bidi.send("browsingContext.close", { context: tab })) : null;
  const unsubscribed = subscription ? quietly("unsubscribe", () => bidi.unsubscribe(subscription)) : null;
  const unpreloaded = preload
    ? quietly("remove its preload script", () => bidi.send("script.removePreloadScript", { script: preload }))
    : null;
  await unintercepted;
  if (off) await quietly("remove its handler", off);
  await Promise.all([unsubscribed, unpreloaded, closed]);
}

// ---- the pool: many origins in a few tabs side by side, within one total budget ------------

export const SPARE_BUDGET_MS = 20_000;
export const OUT_OF_TIME = "not reached: the spare tab ran out of time";
/** How many spare tabs a pool holds at most unless told (site_data.tabs). */
export const SPARE_TABS = 4;
/**
 * A tab more for every this many visits: a new tab costs a renderer of its own and its set-up and
 * teardown, about what a few visits cost, so a handful of sites is quicker in one. That holds on a
 * browser with two cores; one with more runs tabs side by side for real, and each origin gets a tab
 * of its own (at most one a core, one core left for the browser).
 */
export const VISITS_PER_TAB = 4;

/** The cores of the browser's machine, as its page says (navigator.hardwareConcurrency); 0: unknown. */
export async function browserCores(bidi: SpareBidi, context: string): Promise<number> {
  const reply = await bidi
    .send("script.callFunction", {
      functionDeclaration: String(cores),
      target: { context, sandbox: SANDBOX },
      awaitPromise: false,
    })
    .catch(() => null);
  const n = reply?.type === "success" ? Number(reply.result.value) : 0;
  return Number.isInteger(n) && n > 0 ? n : 0;
}

export interface SpareJob {
  origin: string;
  /** A function declaration run in the sandbox of the origin's marked page, given `arg`. */
  fn: string;
  arg?: string;
}

export type SpareOutcome =
  | { origin: string; ok: true; value: unknown }
  | { origin: string; ok: false; reason: string };

/** Why an origin was not read or written, as a caller may see it. */
export function whyFailed(err: unknown): string {
  return err instanceof ServiceWorkerAnswered ? SW_REASON : messageOf(err);
}

/** Closes a tab that may still be opening, or may never have opened; never throws. */
export async function closeTab(tab: Promise<SpareTab>): Promise<void> {
  await tab.then(
    (t) => t.close(),
    () => undefined,
  );
}

const STOP = Symbol("stop");

/**
 * A few spare tabs, each with its own intercept, that visit origins side by side. `warm` opens
 * tabs ahead of the work; `run` uses them (opening more when there is more to do than they were
 * opened for); `close` closes every tab it opened, whatever state it is in, and never throws.
 */
export class SparePool {
  private readonly tabs: Promise<SpareTab>[] = [];
  private closing: Promise<void> | null = null;
  /** The browser's cores, once known (browserCores); 0 until then. */
  private cores = 0;

  constructor(
    private readonly bidi: SpareBidi,
    readonly size: number = SPARE_TABS,
  ) {}

  /**
   * How many tabs `jobs` visits get, at most `size`: one for every VISITS_PER_TAB, or, on a browser
   * with more than 2 cores, one a visit up to one a core less one.
   */
  tabsFor(jobs: number): number {
    if (jobs <= 0) return 0;
    const most = Math.max(1, Math.floor(this.size));
    if (this.cores > 2) return Math.min(most, this.cores - 1, jobs);
    return Math.min(most, Math.ceil(jobs / VISITS_PER_TAB));
  }

  /** The browser's cores are known: more tabs open for `jobs` visits if they allow. */
  useCores(cores: number, jobs: number): void {
    this.cores = cores;
    this.warm(jobs);
  }

  /** Starts opening the tabs `jobs` visits to come get; returns at once. */
  warm(jobs: number): void {
    if (this.closing) return;
    while (this.tabs.length < this.tabsFor(jobs)) {
      const tab = openSpareTab(this.bidi);
      tab.catch(() => undefined);
      this.tabs.push(tab);
      this.joining?.(tab, this.tabs.length - 1);
    }
  }

  /** While a run is on, a tab opened meanwhile (the cores became known) joins it. */
  private joining: ((tab: Promise<SpareTab>, n: number) => void) | null = null;

  /**
   * Runs every job and says for each, in the order given, what happened; never throws. Each tab
   * takes the next job as soon as it is free, so a slow origin holds only its own tab. One origin
   * failing does not stop the rest; a tab that cannot open leaves its share to the others, and
   * when none opens every job fails with the first one's reason; the whole run stops at the budget,
   * and each job not finished by then says so.
   */
  async run(jobs: readonly SpareJob[], opts: { budgetMs?: number } = {}): Promise<SpareOutcome[]> {
    if (jobs.length === 0) return [];
    this.warm(jobs.length);
    const done = new Map<number, SpareOutcome>();
    let next = 0;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stop: () => void = () => undefined;
    // The budget, and the end of the work, stop every tab still waiting for its turn or its tab.
    const stopping = new Promise<typeof STOP>((resolve) => {
      stop = () => {
        stopped = true;
        resolve(STOP);
      };
      timer = setTimeout(stop, opts.budgetMs ?? SPARE_BUDGET_MS);
    });
    // Why each tab that could not open did not (by tab), and how many did not.
    const failures = new Map<number, unknown>();
    const worker = async (opening: Promise<SpareTab>, n: number): Promise<void> => {
      let tab: SpareTab | typeof STOP;
      try {
        tab = await Promise.race([opening, stopping]);
      } catch (err) {
        failures.set(n, err);
        return;
      }
      while (tab !== STOP && !stopped && next < jobs.length) {
        const i = next++;
        const job = jobs[i] as SpareJob;
        const work = tab.run(job.origin, job.fn, job.arg);
        work.catch(() => undefined); // may settle after the budget stopped the run
        try {
          const value = await Promise.race([work, stopping]);
          if (value === STOP) break;
          done.set(i, { origin: job.origin, ok: true, value });
        } catch (err) {
          done.set(i, { origin: job.origin, ok: false, reason: whyFailed(err) });
        }
        if (done.size === jobs.length) stop();
      }
    };
    const workers = this.tabs.map((t, n) => worker(t, n));
    this.joining = (t, n) => workers.push(worker(t, n));
    try {
      // Read by index: a worker that joins while these run is waited for too.
      for (let i = 0; i < workers.length; i++) await workers[i];
    } finally {
      this.joining = null;
      clearTimeout(timer);
    }
    // No tab opened: every job fails with the first tab's reason.
    const first = [...failures.keys()].sort((a, b) => a - b)[0];
    const reason =
      first !== undefined && failures.size === this.tabs.length
        ? messageOf(failures.get(first))
        : OUT_OF_TIME;
    return jobs.map((job, i) => done.get(i) ?? { origin: job.origin, ok: false, reason });
  }

  /** Closes every tab, the ones still opening too; never throws. */
  close(): Promise<void> {
    this.closing ??= Promise.all(this.tabs.map(closeTab)).then(() => undefined);
    return this.closing;
  }
}
