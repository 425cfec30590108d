// capture=true: during each call of such a browser, what the page reported over BiDi — console
// errors, responses >= 400 and network errors — handed back as the result's `page` when there
// were some. Browsers opened without capture never get here (the manager checks the setting).
import type { LiveBrowser } from "../actions/define.ts";
import { messageOf } from "../errors.ts";
import { log } from "../log.ts";
import type { BidiSocket, EventName } from "./bidi.ts";

export const MAX_ITEMS = 20;
export const MAX_TEXT = 500;
export const MAX_URL = 300;
/** How long late events (a request the call started) may take to arrive after the call. */
export const GRACE_MS = 100;

export interface ConsoleError {
  text: string;
  source?: string;
}
export interface FailedRequest {
  url: string;
  status?: number;
  error?: string;
}
export interface PageReport {
  console_errors?: ConsoleError[];
  failed_requests?: FailedRequest[];
  /** How many were left out beyond MAX_ITEMS of each. */
  omitted?: { console_errors?: number; failed_requests?: number };
}

const EVENTS: EventName[] = ["log.entryAdded", "network.responseCompleted", "network.fetchError"];

const cap = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Collects one call's reports; `clean` hides anything secret in a text before it is kept. */
export class Collector {
  readonly console: ConsoleError[] = [];
  readonly requests: FailedRequest[] = [];
  private dropped = { console_errors: 0, failed_requests: 0 };

  constructor(private readonly clean: (text: string) => string) {}

  consoleError(text: string, source: string | undefined): void {
    if (this.console.length >= MAX_ITEMS) {
      this.dropped.console_errors++;
      return;
    }
    const item: ConsoleError = { text: cap(this.clean(text), MAX_TEXT) };
    if (source) item.source = cap(this.clean(source), MAX_URL);
    this.console.push(item);
  }

  failedRequest(url: string, outcome: { status: number } | { error: string }): void {
    if (this.requests.length >= MAX_ITEMS) {
      this.dropped.failed_requests++;
      return;
    }
    this.requests.push({ url: cap(this.clean(url), MAX_URL), ...outcome });
  }

  report(): PageReport | null {
    const out: PageReport = {};
    if (this.console.length) out.console_errors = this.console;
    if (this.requests.length) out.failed_requests = this.requests;
    const omitted: NonNullable<PageReport["omitted"]> = {};
    if (this.dropped.console_errors) omitted.console_errors = this.dropped.console_errors;
    if (this.dropped.failed_requests) omitted.failed_requests = this.dropped.failed_requests;
    if (Object.keys(omitted).length) out.omitted = omitted;
    return Object.keys(out).length ? out : null;
  }
}

type Frame = { url?: string; lineNumber?: number; columnNumber?: number };

function sourceOf(params: { stackTrace?: { callFrames?: Frame[] } }): string | undefined {
  const top = params.stackTrace?.callFrames?.find((f) => f.url);
  if (!top?.url) return undefined;
  return top.lineNumber === undefined ? top.url : `${top.url}:${top.lineNumber + 1}`;
}

// The browser replays the log entries it buffered before a subscription, ahead of the subscribe
// reply; those belong to earlier calls, so entries count only once the reply is in.
function listen(bidi: BidiSocket, into: Collector, live: () => boolean): () => void {
  const offs = [
    bidi.on("log.entryAdded", null, (p) => {
      if (p.level !== "error" || !live()) return;
      into.consoleError(p.text ?? "", sourceOf(p as Parameters<typeof sourceOf>[0]));
    }),
    bidi.on("network.responseCompleted", null, (p) => {
      if (live() && p.response.status >= 400)
        into.failedRequest(p.request.url, { status: p.response.status });
    }),
    bidi.on("network.fetchError", null, (p) => {
      // A request cut short because the page moved on is not a failure of the page.
      if (!live() || p.errorText === "net::ERR_ABORTED") return;
      into.failedRequest(p.request.url, { error: p.errorText });
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}

/**
 * The `capture` hook for the workspace manager. `clean` removes anything secret from a URL or a
 * console text. A BiDi channel that cannot be opened does not fail the call: it runs uncaptured.
 */
export function captureHook(clean: (text: string) => string) {
  return async (browser: LiveBrowser, call: () => Promise<void>): Promise<Record<string, unknown> | null> => {
    const collector = new Collector(clean);
    let bidi: BidiSocket | null = null;
    let subscription: string | null = null;
    let off: (() => void) | null = null;
    try {
      bidi = await browser.bidi();
      off = listen(bidi, collector, () => subscription !== null);
      subscription = await bidi.subscribe(EVENTS);
    } catch (err) {
      log.warn(`capture is off for this call: ${messageOf(err)}`);
      off?.();
      bidi = null;
    }
    try {
      await call();
      if (bidi) await Bun.sleep(GRACE_MS);
    } finally {
      // The socket is the browser's held one: only this call's subscription and listeners go.
      off?.();
      if (bidi && subscription) await bidi.unsubscribe(subscription).catch(() => undefined);
    }
    return collector.report() as Record<string, unknown> | null;
  };
}
