// The spare tab: a tab whose requests for SPARE_PATH, on any origin, are answered with a marked
// blank page, so it can stand on an origin without that site loading and read or write its
// storage (Playwright's way for storageState); spare-pool.ts keeps a few side by side.
// Over BiDi only; no CDP.
import type { Network, Script } from "webdriver-bidi-protocol";
import { messageOf } from "../errors.ts";
import { remoteValue, SANDBOX } from "../grid/bidi.ts";
import { SPARE_PATH } from "../grid/net-rules.ts";
import { addPreload, callScript } from "../grid/page-call.ts";
import { nothing } from "../in-page/standalone.ts";
import { type Arrival, FRAMED, HOME, LOADED, MOVED, Moves } from "./spare-moves.ts";
import {
  FRAME_WAIT_MS,
  type FrameJob,
  type FrameResult,
  inFrames,
  onSpare,
  type SpareBidi,
  sparePage,
  spareUrl,
} from "./spare-page.ts";

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
export type SpareRun = (origin: string, fn: string, arg?: string, opts?: VisitOptions) => Promise<unknown>;

export interface VisitOptions {
  /** Asked once the tab is on the origin: the page it takes next (spareUrl), where it heads as `fn` answers. */
  next?: () => string | undefined;
  /** `fn` runs once this settled; the tab gets to the page meanwhile. */
  ready?: Promise<unknown>;
  /** Origins visited in frames of the page, side by side, before its own `fn` (see FRAMES_PER_PAGE). */
  frames?: readonly FrameJob[];
  /** Told how each frame went, in the order of `frames`, before `next` is asked. */
  framed?: (results: FrameResult[]) => void;
}

/** A request as the intercept hears it. */
type Request = Network.BaseParameters;
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
 * Opens a spare tab: a new background tab, closed by `close`. A set-up that fails tears down what
 * it made, then raises.
 */
export async function openSpareTab(bidi: SpareBidi): Promise<SpareTab> {
  const parts = noParts();
  try {
    const context = (await bidi.send("browsingContext.create", { type: "tab", background: true })).context;
    parts.tab = context;
    await prepare(bidi, context, parts);
    const tab = new Moves(bidi, context);
    const go = (url: string) =>
      bidi.send("browsingContext.navigate", { context, url, wait: "interactive" }).then(() => undefined);
    return spareTab(bidi, tab, parts, go, async () => {
      tab.stop();
      await teardown(bidi, parts);
    });
  } catch (err) {
    await teardown(bidi, parts);
    throw err;
  }
}

/** How long a borrowed tab is given to get back to about:blank before it is left where it is. */
export const BACK_MS = 5_000;

/**
 * Lends an existing tab as a spare tab: a fresh browser's main tab before its first page, which saves
 * opening one (a renderer of its own, most of a one-origin restore). It moves by location.replace, so
 * its history keeps no page of ours (back from the first page is about:blank), and
 * `close` brings it back to about:blank the same way before taking down the rest; the tab stays.
 */
export async function borrowSpareTab(
  bidi: SpareBidi,
  context: string,
  /** The tab makes its first move once this settled (what must be in place in it first). */
  after: Promise<unknown> = Promise.resolve(),
): Promise<SpareTab> {
  const parts = noParts();
  const tab = new Moves(bidi, context, after);
  const giveBack = async () => {
    // A move to a next origin still under way is overtaken.
    const back = tab.replace(HOME);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const home = Promise.race([back, new Promise<void>((resolve) => (timer = setTimeout(resolve, BACK_MS)))])
      .catch((err) =>
        bidi.logger.debug(`the borrowed tab did not get back to about:blank: ${messageOf(err)}`),
      )
      .finally(() => {
        clearTimeout(timer);
        tab.stop();
      });
    await teardown(bidi, parts, home);
  };
  try {
    await prepare(bidi, context, parts);
    return spareTab(bidi, tab, parts, (url) => tab.replace(url), giveBack);
  } catch (err) {
    await teardown(bidi, parts);
    throw err;
  }
}

const noParts = (): Parts => ({
  intercept: null,
  preload: null,
  subscription: null,
  off: null,
  tab: null,
  hold: null,
});

/**
 * The intercept on `context` and its handler, the subscription (to its requests and its moves), and
 * the sandbox made with each document. All asked for together; the handler is in place before any
 * answers, so before any navigation. What was made is in `parts` for the teardown, whatever failed.
 */
async function prepare(bidi: SpareBidi, context: string, parts: Parts): Promise<void> {
  const adding = bidi.send("network.addIntercept", {
    phases: ["beforeRequestSent"],
    contexts: [context],
    urlPatterns: [{ type: "pattern", pathname: SPARE_PATH }],
  });
  // Only our intercept's requests are answered; its id is known before any can arrive.
  let ours: string | null = null;
  // Its frames' requests carry their own contexts: the intercept's id says which are ours.
  parts.off = bidi.on("network.beforeRequestSent", null, (event: Request) => {
    if (ours) answer(bidi, event, ours, parts.hold);
  });
  const subscribing = bidi.subscribe(["network.beforeRequestSent", ...MOVED, LOADED, FRAMED], [context]);
  // The sandbox is made with each document rather than by the first call into it, a round trip
  // into the page saved on every visit.
  const preloading = addPreload(bidi, {
    functionDeclaration: String(nothing),
    sandbox: SANDBOX,
    contexts: [context],
  });
  const [added, subscribed, preloaded] = await Promise.allSettled([adding, subscribing, preloading]);
  if (added.status === "fulfilled") parts.intercept = ours = added.value.intercept;
  if (subscribed.status === "fulfilled") parts.subscription = subscribed.value;
  if (preloaded.status === "fulfilled") parts.preload = preloaded.value.script;
  for (const got of [added, subscribed, preloaded]) if (got.status === "rejected") throw got.reason;
}

/**
 * A prepared tab that reaches an origin's marked page by `go`, unless the visit before sent it there
 * already (its script's last act, once the next origin was known), and whose `close` runs once.
 * That page is not answered before the visit that sent it there has: the browser's channel still
 * needs the document its answer comes from (a page gone first loses the answer).
 */
function spareTab(
  bidi: SpareBidi,
  tab: Moves,
  parts: Parts,
  go: (url: string) => Promise<void>,
  end: () => Promise<void>,
): SpareTab {
  const context = tab.context;
  let heading: Arrival | null = null;
  /** The visit's own call on the tab's page; with `arrival`, its script then sends the tab there. */
  const own = async (origin: string, fn: string, arg: string, arrival: Arrival | null): Promise<unknown> => {
    let release: () => void = () => undefined;
    if (arrival) parts.hold = new Promise<void>((resolve) => (release = resolve));
    let reply: Script.EvaluateResult;
    try {
      reply = await callScript(bidi, {
        functionDeclaration: onSpare(fn),
        target: { context, sandbox: SANDBOX },
        arguments: [
          { type: "string", value: origin },
          { type: "string", value: arg },
          { type: "string", value: arrival?.url ?? "" },
        ],
        awaitPromise: true,
        resultOwnership: "none",
      });
    } catch (err) {
      arrival?.cancel();
      throw err;
    } finally {
      parts.hold = null;
      release();
    }
    const got =
      reply.type === "success"
        ? (JSON.parse(String(remoteValue(reply.result))) as {
            spare: boolean;
            origin: string;
            value?: unknown;
          })
        : null;
    // The page moved on only when it was ours and the function answered.
    if (arrival && got?.spare && got.origin === origin) heading = arrival;
    else arrival?.cancel();
    if (reply.type !== "success" || !got)
      throw new Error(reply.type === "exception" ? reply.exceptionDetails.text : "the script failed");
    if (!got.spare) throw new ServiceWorkerAnswered(origin);
    // A navigation that did not land must never be read (or written) as this origin.
    if (got.origin !== origin) throw new Error(`the spare tab is on ${got.origin}, not ${origin}`);
    return got.value;
  };
  const run: SpareRun = async (origin, fn, arg = "", { next, ready, frames = [], framed } = {}) => {
    const target = spareUrl(
      origin,
      frames.map((f) => f.origin),
    );
    const ahead = heading;
    heading = null;
    // The marked page has nothing to load: parsed is done, and its storage is reachable then.
    let here: Arrival | null = ahead?.url === target ? ahead : null;
    if (here) await here.done;
    else {
      ahead?.cancel();
      here = frames.length ? tab.arrival(target) : null;
      try {
        await go(target);
      } catch (err) {
        here?.cancel();
        throw err;
      }
    }
    await ready?.catch(() => undefined);
    if (!frames.length) {
      // The next page is asked for only now, this page being here: a visit that hangs keeps none.
      const coming = next?.();
      return own(origin, fn, arg, coming ? tab.arrival(coming) : null);
    }
    // The page's own origin is done beside its frames, each as it is parsed; a frame not parsed
    // within FRAME_WAIT_MS is given up on. The move on waits for all (it ends them).
    const arrived = here;
    const timer = setTimeout(() => arrived?.cancel(), FRAME_WAIT_MS);
    const mine = own(origin, fn, arg, null);
    mine.catch(() => undefined);
    try {
      framed?.(await inFrames(bidi, arrived?.frames ?? new Map(), frames));
    } finally {
      clearTimeout(timer);
      arrived?.cancel();
    }
    const value = await mine;
    const coming = next?.();
    if (coming) {
      const arrival = tab.arrival(coming);
      try {
        await tab.move(coming);
        heading = arrival;
      } catch {
        // The next visit gets there by itself.
        arrival.cancel();
      }
    }
    return value;
  };
  let closing: Promise<void> | null = null;
  return {
    context,
    run,
    // Each end stops every wait of the tab's, a move still under way included.
    close: () => (closing ??= end()),
  };
}

// Runs on the socket's event path: a refused answer shows up later as a page without the marker.
// An answer `hold` keeps back goes once it settles.
function answer(bidi: SpareBidi, event: Request, intercept: string, hold: Promise<void> | null): void {
  if (typeof event !== "object" || event === null || event.isBlocked !== true) return;
  if (!event.intercepts?.includes(intercept)) return;
  const request = event.request?.request;
  const url = event.request?.url;
  if (typeof request !== "string" || typeof url !== "string") return;
  if (hold) {
    hold.then(() => answer(bidi, event, intercept, null));
    return;
  }
  try {
    bidi
      .send("network.provideResponse", {
        request,
        statusCode: 200,
        reasonPhrase: "OK",
        headers: HTML,
        body: { type: "string", value: sparePage(url) },
      })
      .catch((err: unknown) => bidi.logger.debug(`the spare tab's answer was refused: ${messageOf(err)}`));
  } catch (err) {
    bidi.logger.debug(`the spare tab's answer was refused: ${messageOf(err)}`);
  }
}

interface Parts {
  /** The next page's answer waits for this: the visit that sent the tab there has not answered yet. */
  hold: Promise<void> | null;
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
// A borrowed tab's way back (`home`) goes meanwhile: only the subscription, whose events it waits
// for, stays until it is back.
async function teardown(bidi: SpareBidi, parts: Parts, home?: Promise<void>): Promise<void> {
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
  const unsubscribe = () =>
    subscription ? quietly("unsubscribe", () => bidi.unsubscribe(subscription)) : null;
  const unsubscribed = home ? home.then(unsubscribe) : unsubscribe();
  const unpreloaded = preload
    ? quietly("remove its preload script", () => bidi.send("script.removePreloadScript", { script: preload }))
    : null;
  await unintercepted;
  if (off) await quietly("remove its handler", off);
  await Promise.all([unsubscribed, unpreloaded, closed]);
}
