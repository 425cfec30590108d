// The spare tab: a tab whose requests for SPARE_PATH, on any origin, are answered with a marked
// blank page, so it can stand on an origin without that site loading and read or write its
// storage (Playwright's way for storageState). Over BiDi only; no CDP.
import { messageOf } from "../errors.ts";
import { log } from "../log.ts";
import { type BidiSocket, type NetworkEvent, SANDBOX } from "./bidi.ts";

export const SPARE_MARKER = "selenium-flow-spare";
export const SPARE_PAGE = `<!doctype html><meta name="${SPARE_MARKER}">`;
/** Only this path is intercepted: a leftover intercept can never hold up a real page. */
export const SPARE_PATH = "/__selenium-flow-spare__";
export const SW_REASON = "a service worker answered: save while on this site";

/** What the spare tab needs of a BiDi socket (a fake one in unit tests). */
export type SpareBidi = Pick<BidiSocket, "send" | "on" | "subscribe" | "unsubscribe">;

/** The page in the tab was not ours: the site's service worker answered. Nothing ran there. */
export class ServiceWorkerAnswered extends Error {
  constructor(readonly origin: string) {
    super(origin);
    this.name = "ServiceWorkerAnswered";
  }
}

/** Stands on `origin` and returns what `expression` evaluates to there (JSON-safe). */
export type SpareRun = (origin: string, expression: string) => Promise<unknown>;

/**
 * `expression`, run only on the marked page of `origin`, as a JSON string that says whose page it
 * was. Checking the origin in the page too means a tab that did not move never takes a write.
 */
export function onSpare(expression: string, origin: string): string {
  return (
    `JSON.stringify(document.querySelector('meta[name="${SPARE_MARKER}"]')` +
    ` ? (location.origin === ${JSON.stringify(origin)}` +
    ` ? {spare: true, origin: location.origin, value: (${expression})}` +
    " : {spare: true, origin: location.origin})" +
    " : {spare: false, origin: location.origin})"
  );
}

const HTML: { name: string; value: { type: "string"; value: string } }[] = [
  { name: "content-type", value: { type: "string", value: "text/html" } },
];

/** A spare tab standing by; `close` tears down and never raises. */
export interface SpareTab {
  readonly context: string;
  run: SpareRun;
  close(): Promise<void>;
}

/**
 * Opens a spare tab (a new background tab, or the existing `context`, which is left open). The
 * intercept and the subscription are asked for together; the handler is in place before either
 * answers, so before any navigation. A set-up that fails tears down what it made, then raises.
 */
export async function openSpareTab(bidi: SpareBidi, opts: { context?: string } = {}): Promise<SpareTab> {
  const parts: Parts = { intercept: null, subscription: null, off: null, tab: null };
  try {
    const context =
      opts.context ?? (await bidi.send("browsingContext.create", { type: "tab", background: true })).context;
    if (!opts.context) parts.tab = context;
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
    const [added, subscribed] = await Promise.allSettled([adding, subscribing]);
    if (added.status === "fulfilled") parts.intercept = ours = added.value.intercept;
    if (subscribed.status === "fulfilled") parts.subscription = subscribed.value;
    if (added.status === "rejected") throw added.reason;
    if (subscribed.status === "rejected") throw subscribed.reason;
    const run: SpareRun = async (origin, expression) => {
      // The marked page has nothing to load: parsed is done.
      await bidi.send("browsingContext.navigate", { context, url: origin + SPARE_PATH, wait: "interactive" });
      const reply = await bidi.send("script.evaluate", {
        expression: onSpare(expression, origin),
        target: { context, sandbox: SANDBOX },
        awaitPromise: true,
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
      .catch((err: unknown) => log.debug(`the spare tab's answer was refused: ${messageOf(err)}`));
  } catch (err) {
    log.debug(`the spare tab's answer was refused: ${messageOf(err)}`);
  }
}

interface Parts {
  intercept: string | null;
  subscription: string | null;
  off: (() => void) | null;
  /** Set only for a tab we created, which teardown closes. */
  tab: string | null;
}

// The intercept goes first and its handler only once it is gone, so no request of ours is ever
// left blocked with nobody to answer it. Closing our own tab meanwhile loses nothing.
async function teardown(bidi: SpareBidi, parts: Parts): Promise<void> {
  const quietly = async (what: string, step: () => Promise<unknown> | unknown) => {
    try {
      await step();
    } catch (err) {
      log.debug(`the spare tab could not ${what}: ${messageOf(err)}`);
    }
  };
  const { intercept, subscription, off, tab } = parts;
  const unintercepted = intercept
    ? quietly("remove its intercept", () => bidi.send("network.removeIntercept", { intercept }))
    : null;
  const closed = tab ? quietly("close", () => bidi.send("browsingContext.close", { context: tab })) : null;
  await unintercepted;
  if (subscription) await quietly("unsubscribe", () => bidi.unsubscribe(subscription));
  if (off) await quietly("remove its handler", off);
  await closed;
}

// ---- the loop: many origins in one tab, within a total budget -----------------------------

export const SPARE_BUDGET_MS = 20_000;
export const OUT_OF_TIME = "not reached: the spare tab ran out of time";

export interface SpareJob {
  origin: string;
  expression: string;
}

export type SpareOutcome =
  | { origin: string; ok: true; value: unknown }
  | { origin: string; ok: false; reason: string };

/** Why an origin was not read or written, as a caller may see it. */
export function whyFailed(err: unknown): string {
  return err instanceof ServiceWorkerAnswered ? SW_REASON : messageOf(err);
}

const TIMED_OUT = Symbol("timed out");

/** Closes a tab that may still be opening, or may never have opened; never throws. */
export async function closeTab(tab: Promise<SpareTab>): Promise<void> {
  await tab.then(
    (t) => t.close(),
    () => undefined,
  );
}

/**
 * Runs each job in one spare tab (opened, or still opening, beforehand; the caller closes it), in
 * order, and says for every job what happened; never throws. One origin failing does not stop the
 * rest; a tab that cannot open fails every job; the whole loop stops at the budget, and each job
 * not reached says so.
 */
export async function runJobs(
  opening: Promise<SpareTab>,
  jobs: readonly SpareJob[],
  opts: { budgetMs?: number; clock?: () => number } = {},
): Promise<SpareOutcome[]> {
  const clock = opts.clock ?? (() => performance.now());
  const deadline = clock() + (opts.budgetMs ?? SPARE_BUDGET_MS);
  const done = new Map<number, SpareOutcome>();
  let tab: SpareTab;
  try {
    tab = await opening;
  } catch (err) {
    // The tab itself failed: every job fails with its reason.
    const reason = messageOf(err);
    return jobs.map((job) => ({ origin: job.origin, ok: false, reason }));
  }
  for (const [i, job] of jobs.entries()) {
    const left = deadline - clock();
    if (left <= 0) break;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const work = tab.run(job.origin, job.expression);
    work.catch(() => undefined); // may settle after the budget ended the loop
    try {
      const value = await Promise.race([
        work,
        new Promise<typeof TIMED_OUT>((resolve) => {
          timer = setTimeout(() => resolve(TIMED_OUT), left);
        }),
      ]);
      if (value === TIMED_OUT) break;
      done.set(i, { origin: job.origin, ok: true, value });
    } catch (err) {
      done.set(i, { origin: job.origin, ok: false, reason: whyFailed(err) });
    } finally {
      clearTimeout(timer);
    }
  }
  return jobs.map((job, i) => done.get(i) ?? { origin: job.origin, ok: false, reason: OUT_OF_TIME });
}
