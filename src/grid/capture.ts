// capture=true: during each call of such a browser, what the page reported over BiDi — console
// errors, responses >= 400 and network errors — handed back as the result's `page` when there
// were some. Browsers opened without capture never get here (the manager checks the setting).
import { messageOf } from "../errors.ts";
import type { Log } from "../log.ts";
import type { EventRing, Logged } from "./event-log.ts";
import type { Page } from "./page.ts";

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

const cap = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Collects one call's reports; `redact` redacts anything secret in a text before it is kept. */
export class Collector {
  readonly console: ConsoleError[] = [];
  readonly requests: FailedRequest[] = [];
  private dropped = { console_errors: 0, failed_requests: 0 };

  constructor(private readonly redact: (text: string) => string) {}

  consoleError(text: string, source: string | undefined): void {
    if (this.console.length >= MAX_ITEMS) {
      this.dropped.console_errors++;
      return;
    }
    const item: ConsoleError = { text: cap(this.redact(text), MAX_TEXT) };
    if (source) item.source = cap(this.redact(source), MAX_URL);
    this.console.push(item);
  }

  failedRequest(url: string, outcome: { status: number } | { error: string }): void {
    if (this.requests.length >= MAX_ITEMS) {
      this.dropped.failed_requests++;
      return;
    }
    this.requests.push({ url: cap(this.redact(url), MAX_URL), ...outcome });
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

// The browser's held connection already keeps what its pages report (event-log.ts): a call's share
// is what came in after it began.
function collect(entries: Logged[], into: Collector): void {
  for (const { entry: e } of entries) {
    if (e.kind === "console") {
      if (e.level === "error") into.consoleError(e.text, e.source);
    } else if (e.error) {
      // A request cut short because the page moved on is not a failure of the page.
      if (e.error !== "net::ERR_ABORTED") into.failedRequest(e.url, { error: e.error });
    } else if ((e.status ?? 0) >= 400) into.failedRequest(e.url, { status: e.status as number });
  }
}

/**
 * The `capture` hook for the workspace manager. `redact` redacts anything secret in a URL or a
 * console text. A BiDi channel that cannot be opened does not fail the call: it runs uncaptured.
 */
export function captureHook(redact: (text: string) => string, log: Pick<Log, "warn">) {
  return async (
    browser: { page(): Promise<Page> },
    call: () => Promise<void>,
  ): Promise<Record<string, unknown> | null> => {
    const collector = new Collector(redact);
    let ring: EventRing | null = null;
    let from = 0;
    try {
      ring = (await browser.page()).held.logs;
      from = ring.head;
    } catch (err) {
      log.warn(`capture is off for this call: ${messageOf(err)}`);
    }
    await call();
    if (!ring) return null;
    await Bun.sleep(GRACE_MS);
    collect(ring.since(from), collector);
    return collector.report() as Record<string, unknown> | null;
  };
}
