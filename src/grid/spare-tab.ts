// The spare tab: a tab whose requests for SPARE_PATH, on any origin, are answered with a marked
// blank page, so it can stand on an origin without that site loading and read or write its
// storage (Playwright's way for storageState). Over BiDi only; no CDP.
import { messageOf } from "../errors.ts";
import { log } from "../log.ts";
import type { BidiSocket, NetworkEvent } from "./bidi.ts";

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

/** `expression`, run only on the marked page, as a JSON string that says whose page it was. */
export function onSpare(expression: string): string {
  return (
    `JSON.stringify(document.querySelector('meta[name="${SPARE_MARKER}"]')` +
    ` ? {spare: true, origin: location.origin, value: (${expression})}` +
    " : {spare: false, origin: location.origin})"
  );
}

const HTML: { name: string; value: { type: "string"; value: string } }[] = [
  { name: "content-type", value: { type: "string", value: "text/html" } },
];

/**
 * Opens a spare tab (a new background tab, or the existing `context`, which is left open), runs
 * `fn` with its `run`, and always tears down: the intercept first, then its handler, then the tab
 * if we created it. Teardown never raises.
 */
export async function withSpareTab<T>(
  bidi: SpareBidi,
  fn: (run: SpareRun) => Promise<T>,
  opts: { context?: string } = {},
): Promise<T> {
  let tab = opts.context ?? null;
  let intercept: string | null = null;
  let subscription: string | null = null;
  let off: (() => void) | null = null;
  try {
    if (!tab) tab = (await bidi.send("browsingContext.create", { type: "tab", background: true })).context;
    const context = tab;
    intercept = (
      await bidi.send("network.addIntercept", {
        phases: ["beforeRequestSent"],
        contexts: [context],
        urlPatterns: [{ type: "pattern", pathname: SPARE_PATH }],
      })
    ).intercept;
    const ours = intercept;
    off = bidi.on("network.beforeRequestSent", context, (event: NetworkEvent) => answer(bidi, event, ours));
    subscription = await bidi.subscribe(["network.beforeRequestSent"], [context]);
    const run: SpareRun = async (origin, expression) => {
      // The marked page has nothing to load: parsed is done.
      await bidi.send("browsingContext.navigate", { context, url: origin + SPARE_PATH, wait: "interactive" });
      const reply = await bidi.send("script.evaluate", {
        expression: onSpare(expression),
        target: { context },
        awaitPromise: true,
      });
      if (reply.type !== "success") throw new Error(reply.exceptionDetails?.text || "the script failed");
      const got = JSON.parse(String(reply.result.value)) as {
        spare: boolean;
        origin: string;
        value?: unknown;
      };
      if (!got.spare) throw new ServiceWorkerAnswered(origin);
      // A navigation that did not land must never be read as this origin.
      if (got.origin !== origin) throw new Error(`the spare tab is on ${got.origin}, not ${origin}`);
      return got.value;
    };
    return await fn(run);
  } finally {
    await teardown(bidi, { intercept, subscription, off, tab: opts.context ? null : tab });
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

async function teardown(
  bidi: SpareBidi,
  parts: {
    intercept: string | null;
    subscription: string | null;
    off: (() => void) | null;
    tab: string | null;
  },
): Promise<void> {
  const quietly = async (what: string, step: () => Promise<unknown> | unknown) => {
    try {
      await step();
    } catch (err) {
      log.debug(`the spare tab could not ${what}: ${messageOf(err)}`);
    }
  };
  const { intercept, subscription, off, tab } = parts;
  if (intercept)
    await quietly("remove its intercept", () => bidi.send("network.removeIntercept", { intercept }));
  if (subscription) await quietly("unsubscribe", () => bidi.unsubscribe(subscription));
  if (off) await quietly("remove its handler", off);
  if (tab) await quietly("close", () => bidi.send("browsingContext.close", { context: tab }));
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

/**
 * Runs each job in one spare tab, in order, and says for every job what happened; never throws.
 * One origin failing does not stop the rest; a tab that cannot open fails every job not done; the
 * whole loop stops at the budget, and each job not reached says so.
 */
export async function spareLoop(
  bidi: SpareBidi,
  jobs: readonly SpareJob[],
  opts: { context?: string; budgetMs?: number; clock?: () => number } = {},
): Promise<SpareOutcome[]> {
  if (jobs.length === 0) return [];
  const clock = opts.clock ?? (() => performance.now());
  const deadline = clock() + (opts.budgetMs ?? SPARE_BUDGET_MS);
  const done = new Map<number, SpareOutcome>();
  try {
    await withSpareTab(
      bidi,
      async (run) => {
        for (const [i, job] of jobs.entries()) {
          const left = deadline - clock();
          if (left <= 0) return;
          let timer: ReturnType<typeof setTimeout> | undefined;
          const work = run(job.origin, job.expression);
          work.catch(() => undefined); // may settle after the budget ended the loop
          try {
            const value = await Promise.race([
              work,
              new Promise<typeof TIMED_OUT>((resolve) => {
                timer = setTimeout(() => resolve(TIMED_OUT), left);
              }),
            ]);
            if (value === TIMED_OUT) return;
            done.set(i, { origin: job.origin, ok: true, value });
          } catch (err) {
            done.set(i, { origin: job.origin, ok: false, reason: whyFailed(err) });
          } finally {
            clearTimeout(timer);
          }
        }
      },
      { context: opts.context },
    );
  } catch (err) {
    // The tab itself failed: every job not done fails with its reason.
    const reason = messageOf(err);
    for (const [i, job] of jobs.entries())
      if (!done.has(i)) done.set(i, { origin: job.origin, ok: false, reason });
  }
  return jobs.map((job, i) => done.get(i) ?? { origin: job.origin, ok: false, reason: OUT_OF_TIME });
}
