// The Grid: open a browser, reattach to it by id per call (the server holds no driver between calls),
// end it, ask whether it lives, and open its BiDi socket. Classic W3C WebDriver via selenium-webdriver.

import { Session, WebDriver } from "selenium-webdriver";
import { Executor } from "selenium-webdriver/http";
import { AppError, badInput, messageOf, redactCredentials, unavailable } from "../errors.ts";
import { Log } from "../log.ts";
import { BidiSocket } from "./bidi.ts";
import { capabilitiesOf, type OpenOptions } from "./webdriver-caps.ts";
import { gridReason, isNoSuchSession, NO_FREE_SLOT } from "./webdriver-errors.ts";
import { type GridDownload, GridFiles } from "./webdriver-files.ts";
import { GridHttpClient, parseGridUrl, type Timeouts } from "./webdriver-http.ts";

export interface Opened {
  id: string;
  driver: WebDriver;
  capabilities: Record<string, unknown>;
}

// Cheap bookkeeping calls (status, alive, end) must not hang a request on a stuck Grid.
const QUICK_MS = 10_000;
// A BiDi command's deadline, and its socket's to open, unless a longer one applies (docs/architecture.md, src/grid/).
const BIDI_OPEN_MS = 5_000;
// Moving a file through the Grid (up to 64 MiB as base64) takes longer.
const FILE_MS = 120_000;

/** A node in the Grid's /status: its slots, each with the browser it holds, if any. */
interface GridNode {
  slots?: Array<{ session?: { sessionId?: unknown } | null }>;
}

export class Grid {
  readonly url: string;
  private readonly base: string;
  private readonly http: GridHttpClient;
  private readonly executor: Executor;
  private readonly openTimeoutMs: number;
  /** Bookkeeping calls (status, alive, end): quick, and never past the command deadline. */
  private readonly quickMs: number;
  private readonly files: GridFiles;
  private readonly bidiOpenMs: number;
  /** The server's log, for each browser's connection. */
  private readonly log: Log;

  /** `openTimeout`: seconds a new browser may wait for a slot; `commandTimeout`: seconds per command. */
  constructor(url: string, opts: { openTimeout?: number; commandTimeout?: number; log?: Log } = {}) {
    this.url = url;
    this.log = opts.log ?? new Log();
    const { base, auth } = parseGridUrl(url);
    this.base = base;
    const commandMs = (opts.commandTimeout ?? 60) * 1000;
    this.bidiOpenMs = Math.min(BIDI_OPEN_MS, commandMs);
    this.http = new GridHttpClient(base, auth, commandMs);
    this.quickMs = Math.min(QUICK_MS, commandMs);
    this.files = new GridFiles(this.http, base, Math.max(FILE_MS, commandMs));
    // One executor (and so one pooled HTTP client) serves every reattached driver of this Grid.
    this.executor = new Executor(this.http as never);
    this.openTimeoutMs = (opts.openTimeout ?? 60) * 1000;
  }

  /** The new-session capabilities for `o` (pure). */
  capabilities(o: OpenOptions): Record<string, unknown> {
    return capabilitiesOf(o);
  }

  /** Opens a new browser. Waits at most `openTimeout` for a free slot. */
  async open(o: OpenOptions): Promise<Opened> {
    const caps = this.capabilities(o);
    let res: Response;
    try {
      res = await this.http.fetch("/session", {
        method: "POST",
        headers: this.http.headers({ "content-type": "application/json; charset=utf-8" }),
        body: JSON.stringify({ capabilities: { alwaysMatch: caps } }),
        signal: AbortSignal.timeout(this.openTimeoutMs),
      });
    } catch (err) {
      if (err instanceof DOMException) throw await this.noSlot(o.browser);
      throw err;
    }
    if (res.status === 401 || res.status === 407) throw this.http.refusedCredentials(res.status);
    const body = (await res.json().catch(() => null)) as {
      value?: {
        sessionId?: string;
        capabilities?: Record<string, unknown>;
        error?: string;
        message?: string;
      };
    } | null;
    const value = body?.value;
    if (res.ok && typeof value?.sessionId === "string") {
      const capabilities = value.capabilities ?? {};
      const told = capabilities.timeouts as Partial<Timeouts> | undefined;
      this.http.remember(value.sessionId, {
        pageLoad: told?.pageLoad ?? (o.pageLoadTimeout === undefined ? undefined : o.pageLoadTimeout * 1000),
        script: told?.script ?? (o.scriptTimeout === undefined ? undefined : o.scriptTimeout * 1000),
      });
      const driver = new WebDriver(new Session(value.sessionId, capabilities), this.executor);
      return { id: value.sessionId, driver, capabilities };
    }
    if (!value || typeof value.message !== "string") {
      throw unavailable(
        `the Grid at ${this.base} answered HTTP ${res.status} to a new browser, not WebDriver`,
      );
    }
    if (/new session request timed out/i.test(value.message)) throw await this.noSlot(o.browser);
    const reason = gridReason(value.message);
    // Capabilities the driver could not take are the caller's to fix; anything else is the Grid's.
    if (
      value.error === "invalid argument" ||
      /invalid argument|cannot parse capability|illegal key|unrecognized capability|cannot be cast/i.test(
        reason,
      )
    ) {
      throw badInput(`the Grid refused this browser: ${reason}`);
    }
    throw unavailable(`the Grid could not start a browser: ${reason}`);
  }

  /** A driver bound to browser `id`, with no network call. */
  attach(id: string): WebDriver {
    return new WebDriver(new Session(id, { "se:downloadsEnabled": true }), this.executor);
  }

  /** Ends browser `id`; a browser that is already gone is fine. */
  async end(id: string): Promise<void> {
    this.http.forget(id);
    try {
      const res = await this.http.fetch(`/session/${encodeURIComponent(id)}`, {
        method: "DELETE",
        headers: this.http.headers(),
        signal: AbortSignal.timeout(this.quickMs),
      });
      await res.arrayBuffer();
    } catch (err) {
      if (err instanceof DOMException) throw unavailable(`the Grid at ${this.base} did not answer in time`);
      throw err;
    }
  }

  /** Whether browser `id` still lives: one cheap call. */
  async alive(id: string): Promise<boolean> {
    let res: Response;
    try {
      // Get Window Handle leaves an open dialog alone (reading the URL would dismiss it).
      res = await this.http.fetch(`/session/${encodeURIComponent(id)}/window`, {
        headers: this.http.headers(),
        signal: AbortSignal.timeout(this.quickMs),
      });
    } catch (err) {
      if (err instanceof DOMException) throw unavailable(`the Grid at ${this.base} did not answer in time`);
      throw err;
    }
    if (res.ok) {
      await res.body?.cancel();
      return true;
    }
    const body = (await res.json().catch(() => null)) as {
      value?: { error?: string; message?: string };
    } | null;
    const e = body?.value;
    // A live browser can still refuse (its window closed): only "gone" means gone.
    if (e && isNoSuchSession(new Error(`${e.error ?? ""}: ${e.message ?? ""}`))) return false;
    return true;
  }

  /** The Grid's readiness, from GET /status. Never throws. */
  async status(): Promise<{ ready: boolean; message: string }> {
    try {
      const res = await this.statusCall();
      if (res.status === 401 || res.status === 407)
        return { ready: false, message: this.http.refusedCredentials(res.status).message };
      const body = (await res.json().catch(() => null)) as {
        value?: { ready?: unknown; message?: unknown };
      } | null;
      if (!body?.value)
        return {
          ready: false,
          message: `the Grid at ${this.base} answered HTTP ${res.status}, not a status`,
        };
      return {
        ready: body.value.ready === true,
        message: redactCredentials(String(body.value.message ?? "")),
      };
    } catch (err) {
      const why = err instanceof DOMException ? "no answer in time" : messageOf(err);
      return {
        ready: false,
        message: err instanceof AppError ? why : `the Grid at ${this.base} did not answer: ${why}`,
      };
    }
  }

  /** The Grid's nodes as its /status lists them (one call), or null when it did not answer. */
  private async statusNodes(): Promise<GridNode[] | null> {
    try {
      const res = await this.statusCall();
      const body = (await res.json().catch(() => null)) as { value?: { nodes?: GridNode[] } } | null;
      return body?.value ? (body.value.nodes ?? []) : null;
    } catch {
      return null;
    }
  }

  /** The ids of every browser the Grid holds now (one /status call), or null when it did not answer. */
  async sessions(): Promise<Set<string> | null> {
    const nodes = await this.statusNodes();
    if (!nodes) return null;
    const ids = new Set<string>();
    for (const slot of nodes.flatMap((n) => n.slots ?? [])) {
      const id = slot.session?.sessionId;
      if (typeof id === "string") ids.add(id);
    }
    return ids;
  }

  /** The Grid's browser slots and how many hold no browser (one /status call); null when it did not answer. */
  async slots(): Promise<{ total: number; free: number } | null> {
    const nodes = await this.statusNodes();
    if (!nodes) return null;
    const all = nodes.flatMap((n) => n.slots ?? []);
    return { total: all.length, free: all.filter((s) => !s.session).length };
  }

  /** The browser's managed downloads, newest first (see GridFiles). */
  downloads(id: string): Promise<GridDownload[]> {
    return this.files.downloads(id);
  }

  /** One download's bytes, streamed; null when the browser or the file is gone. */
  download(
    id: string,
    name: string,
  ): Promise<{ body: ReadableStream<Uint8Array>; size: number | null } | null> {
    return this.files.download(id, name);
  }

  /** Puts a file on the browser's machine through the Grid; the path to type into a file input. */
  upload(id: string, name: string, data: Uint8Array): Promise<string> {
    return this.files.upload(id, name, data);
  }

  // GET /status, a bookkeeping call: its callers decide what a failure means.
  private statusCall(): Promise<Response> {
    return this.http.fetch("/status", {
      headers: this.http.headers(),
      signal: AbortSignal.timeout(this.quickMs),
    });
  }

  /** The Grid's BiDi proxy for browser `id` (credentials are sent as a header, never in the URL). */
  bidiUrl(id: string): string {
    const ws = this.base.replace(/^http(s?):/i, (_m, s: string) => `ws${s}:`);
    return `${ws}/session/${encodeURIComponent(id)}/se/bidi`;
  }

  bidi(id: string): Promise<BidiSocket> {
    const auth = this.http.headers().authorization;
    return BidiSocket.connect(this.bidiUrl(id), {
      commandTimeoutMs: this.bidiOpenMs,
      log: this.log,
      ...(auth ? { headers: { authorization: auth } } : {}),
    });
  }

  // Our wait ran out, or the Grid's queue gave up. If the Grid has nodes but none of this browser,
  // waiting longer would never help: say so rather than "busy".
  private async noSlot(browser: string): Promise<AppError> {
    try {
      const res = await this.statusCall();
      const body = (await res.json()) as {
        value?: { nodes?: { slots?: { stereotype?: { browserName?: string } }[] }[] };
      };
      const offered = new Set<string>();
      for (const node of body.value?.nodes ?? []) {
        for (const slot of node.slots ?? [])
          if (slot.stereotype?.browserName) offered.add(slot.stereotype.browserName);
      }
      if (offered.size > 0 && !offered.has(browser)) {
        return badInput(`the Grid has no ${browser} browsers: it offers ${[...offered].sort().join(", ")}`);
      }
    } catch {
      // fall through to the plain answer
    }
    return unavailable(NO_FREE_SLOT);
  }
}
