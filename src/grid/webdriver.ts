// The Grid: open a browser, reattach to it by id per call (the server holds no driver between calls),
// end it, ask whether it lives, and open its BiDi socket. Classic W3C WebDriver via selenium-webdriver.

import { Session, WebDriver } from "selenium-webdriver";
import { Executor } from "selenium-webdriver/http";
import { AppError, badInput, messageOf, redactCredentials, unavailable } from "../errors.ts";
import { Log } from "../log.ts";
import { BidiSocket } from "./bidi.ts";
import { capabilitiesOf, type OpenOptions } from "./webdriver-caps.ts";
import { gridReason, isNoSuchSession } from "./webdriver-errors.ts";
import { type GridDownload, GridFiles } from "./webdriver-files.ts";
import { GridHttpClient, parseGridUrl, type Timeouts } from "./webdriver-http.ts";
import {
  type GridNode,
  noBrowserWhy,
  sessionIdsOf,
  slotCount,
  type TaggedBrowser,
  taggedBy,
} from "./webdriver-status.ts";

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
// The last stretch of a new browser's wait, in which the Grid's /status is asked beside it: a wait
// that runs out then says why (no answer at all, no such browser, every slot busy) within open_timeout.
const PROBE_MS = 5_000;

/** What the Grid answered to ending a browser: it ended it, or it had gone already. */
export type EndAnswer = "ended" | "gone";

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
  /** This server group's tag on the browsers it opens (webdriver-caps.ts OWNER_CAP); none: untagged. */
  readonly group: string | null;

  /**
   * `openTimeout`: seconds a new browser may wait for a slot; `commandTimeout`: seconds per command;
   * `group`: the owner tag's group (the same on every server of a group, see app.ts).
   */
  constructor(
    url: string,
    opts: { openTimeout?: number; commandTimeout?: number; log?: Log; group?: string } = {},
  ) {
    this.url = url;
    this.group = opts.group ?? null;
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

  /** The new-session capabilities for `o` (pure), with this server group's owner tag. */
  capabilities(o: OpenOptions): Record<string, unknown> {
    return capabilitiesOf(o, this.group ?? undefined);
  }

  /**
   * Opens a new browser. Waits for a free slot at most `openTimeout` from `since` (a
   * performance.now(): when the caller's open began, so the work before counts too).
   */
  async open(o: OpenOptions, since = performance.now()): Promise<Opened> {
    const caps = this.capabilities(o);
    const waitMs = Math.max(1, this.openTimeoutMs - (performance.now() - since));
    // Near the end of the wait the Grid's /status is asked beside it, to say why a wait ran out.
    let probe: Promise<GridNode[] | null> | null = null;
    const probing = setTimeout(
      () => {
        probe = this.statusNodes(Math.min(PROBE_MS, waitMs));
      },
      Math.max(0, waitMs - PROBE_MS),
    );
    let res: Response;
    try {
      res = await this.http.fetch("/session", {
        method: "POST",
        headers: this.http.headers({ "content-type": "application/json; charset=utf-8" }),
        body: JSON.stringify({ capabilities: { alwaysMatch: caps } }),
        signal: AbortSignal.timeout(waitMs),
      });
    } catch (err) {
      if (err instanceof DOMException)
        throw noBrowserWhy(this.base, o.browser, this.openSeconds, await (probe ?? this.statusNodes(1_000)));
      throw err;
    } finally {
      clearTimeout(probing);
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
    if (/new session request timed out/i.test(value.message))
      throw noBrowserWhy(this.base, o.browser, this.openSeconds, await this.statusNodes());
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

  /**
   * Ends browser `id`: what the Grid answered (it ended it, or it was gone already). Throws when the
   * Grid did not answer in time or refused (503, saying which).
   */
  async end(id: string): Promise<EndAnswer> {
    this.http.forget(id);
    let res: Response;
    try {
      res = await this.http.fetch(`/session/${encodeURIComponent(id)}`, {
        method: "DELETE",
        headers: this.http.headers(),
        signal: AbortSignal.timeout(this.quickMs),
      });
    } catch (err) {
      if (err instanceof DOMException)
        throw unavailable(
          `the Grid at ${this.base} did not answer the end of a browser within ${Math.round(this.quickMs / 1000)} s`,
        );
      throw err;
    }
    if (res.ok) {
      await res.arrayBuffer();
      return "ended";
    }
    if (res.status === 401 || res.status === 407) throw this.http.refusedCredentials(res.status);
    const body = (await res.json().catch(() => null)) as {
      value?: { error?: string; message?: string };
    } | null;
    const e = body?.value;
    if (e && isNoSuchSession(new Error(`${e.error ?? ""}: ${e.message ?? ""}`))) return "gone";
    // The Grid's text may name the browser: its id never leaves the server.
    const why = e?.message ? `: ${gridReason(e.message).split(id).join("…")}` : "";
    throw unavailable(`the Grid at ${this.base} did not end the browser (HTTP ${res.status})${why}`);
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

  /** The Grid's nodes as its /status lists them (one call, at most `ms`), or null when it did not answer. */
  private async statusNodes(ms = this.quickMs): Promise<GridNode[] | null> {
    try {
      const res = await this.statusCall(ms);
      const body = (await res.json().catch(() => null)) as { value?: { nodes?: GridNode[] } } | null;
      return body?.value ? (body.value.nodes ?? []) : null;
    } catch {
      return null;
    }
  }

  /** The ids of every browser the Grid holds now (one /status call), or null when it did not answer. */
  async sessions(): Promise<Set<string> | null> {
    const nodes = await this.statusNodes();
    return nodes && sessionIdsOf(nodes);
  }

  /** The Grid's browser slots and how many hold no browser (one /status call); null when it did not answer. */
  async slots(): Promise<{ total: number; free: number } | null> {
    const nodes = await this.statusNodes();
    return nodes && slotCount(nodes);
  }

  /**
   * The browsers the Grid holds with this server group's tag (one /status call, at most `ms`); null
   * when it did not answer, or this Grid object tags nothing.
   */
  async tagged(ms = this.quickMs): Promise<TaggedBrowser[] | null> {
    if (!this.group) return null;
    const nodes = await this.statusNodes(ms);
    return nodes && taggedBy(nodes, this.group);
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
  private statusCall(ms = this.quickMs): Promise<Response> {
    return this.http.fetch("/status", {
      headers: this.http.headers(),
      signal: AbortSignal.timeout(ms),
    });
  }

  private get openSeconds(): number {
    return Math.round(this.openTimeoutMs / 1000);
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
}
