// The Grid: open a browser, reattach to it by id per call (the server holds no driver between calls),
// end it, ask whether it lives, and open its BiDi socket. Classic W3C WebDriver via selenium-webdriver.
import { Session, WebDriver, error as wdError } from "selenium-webdriver";
import { Executor, Response as WdResponse } from "selenium-webdriver/http";
import { badInput, FlowError, messageOf, scrub, unavailable } from "../errors.ts";
import { unzipOne, zipOne } from "../files/zip.ts";
import { BidiSocket } from "./bidi.ts";

export interface OpenOptions {
  browser: "chrome" | "firefox";
  width?: number;
  height?: number;
  insecure?: boolean;
  /** seconds */
  pageLoadTimeout?: number;
  /** seconds */
  scriptTimeout?: number;
  record?: boolean;
  videoName?: string;
}

export interface Opened {
  id: string;
  driver: WebDriver;
  capabilities: Record<string, unknown>;
}

/** A file the browser downloaded, as the Grid lists it. */
export interface GridDownload {
  name: string;
  size: number | null;
  /** Epoch ms. */
  modified: number | null;
}

export const NO_FREE_SLOT =
  "the Grid has no free slot for a new browser: every slot is busy. Retry after a wait, or end a browser you no longer need";

// Cheap bookkeeping calls (status, alive, end) must not hang a request on a stuck Grid.
const QUICK_MS = 10_000;
// A BiDi command's deadline, and its socket's to open, unless a longer one applies (spec §1.6).
const BIDI_OPEN_MS = 5_000;
// Moving a file through the Grid (up to 64 MiB as base64) takes longer.
const FILE_MS = 120_000;
// A page load or a script may take the browser's own timeout; the driver's answer gets this long
// after it to arrive, so the caller reads the driver's reason rather than ours.
const DRIVER_MARGIN_MS = 5_000;
// WebDriver's defaults, for a browser whose timeouts this server never learnt.
const W3C_TIMEOUTS: Timeouts = { pageLoad: 300_000, script: 30_000 };
// Browsers whose timeouts are remembered; past this many the oldest are forgotten (and asked again).
const KNOWN_BROWSERS = 10_000;

/** A browser's page load and script timeouts, ms. */
interface Timeouts {
  pageLoad: number;
  script: number;
}

/** A command past its deadline: the Grid counts as not answering (503). */
export function gridTimedOut(base: string, seconds: number, what = "grid.command_timeout"): FlowError {
  return unavailable(
    `the Grid at ${base} did not answer a WebDriver command within ${seconds} s (${what}): it may be overloaded or stuck; retry after a wait`,
  );
}

// POST commands that may take the browser's page load timeout, or its script timeout.
const PAGE_LOADS = /^\/session\/([^/]+)\/(?:url|back|forward|refresh)$/;
const SCRIPTS = /^\/session\/([^/]+)\/execute\/(?:sync|async)$/;
const SET_TIMEOUTS = /^\/session\/([^/]+)\/timeouts$/;

/** The Grid URL split into a credential-free base and its Basic auth header, if it had credentials. */
function parseGridUrl(url: string): { base: string; auth: string | null } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw badInput(`the Grid URL is not a URL: ${scrub(url)}`);
  }
  const auth =
    u.username || u.password
      ? `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString("base64")}`
      : null;
  u.username = "";
  u.password = "";
  u.search = "";
  u.hash = "";
  return { base: u.toString().replace(/\/+$/, ""), auth };
}

// The Grid's error text carries Java host and build lines; keep the driver's own reason.
function gridReason(message: unknown): string {
  let text = typeof message === "string" ? message : "no reason given";
  text = text.split(/\n(?:Host info|Build info|System info|Driver info)\b/)[0] ?? text;
  const lastMessage = text.lastIndexOf("Message: ");
  if (lastMessage >= 0) text = text.slice(lastMessage + "Message: ".length);
  text = text
    .split("\n")
    .map((line) => line.trim().replace(/^from /, ""))
    .filter(Boolean)
    .join("; ")
    .replace(/\s+/g, " ")
    .trim();
  if (text.length > 300) text = `${text.slice(0, 297)}...`;
  return scrub(text);
}

// How the driver and the Grid say a browser is gone. The Grid's router: "Unable to find session with
// ID: <id>. Session was removed" (or "…was closed"), whatever the status and error code it sends it
// with (a 500 "unknown error" when the browser went mid-command); its node: "Cannot find session
// with id: <id>".
const GONE =
  /invalid session id|(?:unable to|cannot) find session with id|no such session|session deleted|session timed out or not found|session was (?:removed|closed|deleted|terminated)/i;

/** The Grid or the driver says the browser is gone (reaped, quit, crashed). */
export function isNoSuchSession(err: unknown): boolean {
  if (err instanceof wdError.NoSuchSessionError) return true;
  if (!(err instanceof Error) || err instanceof FlowError) return false;
  return err.name === "NoSuchSessionError" || GONE.test(err.message);
}

/** What selenium-webdriver's executor hands its HTTP client (its typings leave the fields out). */
interface WireRequest {
  method: string;
  path: string;
  data?: unknown;
  headers: Map<string, string>;
}

/**
 * selenium-webdriver's HTTP client contract, on Bun's fetch: pooled keep-alive connections, Basic
 * auth, and a deadline on every command (grid.command_timeout; a page load or a script gets the
 * browser's own timeout when that is longer).
 */
class GridHttpClient {
  private readonly timeouts = new Map<string, Timeouts>();

  constructor(
    private readonly base: string,
    private readonly auth: string | null,
    readonly commandMs: number,
  ) {}

  headers(extra?: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = { accept: "application/json; charset=utf-8", ...extra };
    if (this.auth) h.authorization = this.auth;
    return h;
  }

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    try {
      return await fetch(`${this.base}${path}`, init);
    } catch (err) {
      if (err instanceof DOMException && (err.name === "TimeoutError" || err.name === "AbortError"))
        throw err;
      throw unavailable(`the Grid at ${this.base} did not answer: ${messageOf(err)}`);
    }
  }

  /** A browser's timeouts, as it was opened with them (or set them since). */
  remember(id: string, t: Partial<Timeouts>): void {
    const known = this.timeouts.get(id) ?? W3C_TIMEOUTS;
    this.timeouts.delete(id);
    this.timeouts.set(id, {
      pageLoad: typeof t.pageLoad === "number" ? t.pageLoad : known.pageLoad,
      script: typeof t.script === "number" ? t.script : known.script,
    });
    if (this.timeouts.size > KNOWN_BROWSERS)
      this.timeouts.delete(this.timeouts.keys().next().value as string);
  }

  forget(id: string): void {
    this.timeouts.delete(id);
  }

  async send(req: WireRequest): Promise<WdResponse> {
    const extra: Record<string, string> = {};
    for (const [name, value] of req.headers) extra[name.toLowerCase()] = value;
    let body: string | undefined;
    if (req.method === "POST" || req.method === "PUT") {
      body = JSON.stringify(req.data ?? {});
      extra["content-type"] = "application/json; charset=utf-8";
    }
    const path = req.path.startsWith("/") ? req.path : `/${req.path}`;
    const { ms, what } = await this.deadline(req.method, path);
    try {
      const res = await this.fetch(path, {
        method: req.method,
        headers: this.headers(extra),
        body,
        signal: AbortSignal.timeout(ms),
      });
      if (res.status === 401 || res.status === 407) throw this.refusedCredentials(res.status);
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => {
        headers[name] = value;
      });
      const text = (await res.text()).replace(/\0/g, "");
      const set = req.method === "POST" ? SET_TIMEOUTS.exec(path) : null;
      if (set && res.ok) this.remember(decodeURIComponent(set[1] as string), req.data as Partial<Timeouts>);
      return new WdResponse(res.status, headers, text);
    } catch (err) {
      if (err instanceof DOMException && (err.name === "TimeoutError" || err.name === "AbortError")) {
        throw gridTimedOut(this.base, Math.round(ms / 1000), what);
      }
      throw err;
    }
  }

  /** How long a command may take: the command deadline, or the browser's own wait plus a margin. */
  private async deadline(method: string, path: string): Promise<{ ms: number; what: string }> {
    const plain = { ms: this.commandMs, what: "grid.command_timeout" };
    if (method !== "POST") return plain;
    const page = PAGE_LOADS.exec(path);
    const script = page ? null : SCRIPTS.exec(path);
    const m = page ?? script;
    if (!m) return plain;
    const t = await this.timeoutsOf(decodeURIComponent(m[1] as string));
    const own = (page ? t.pageLoad : t.script) + DRIVER_MARGIN_MS;
    if (own <= this.commandMs) return plain;
    return { ms: own, what: page ? "the browser's page_load_timeout" : "the browser's script_timeout" };
  }

  /** A browser's timeouts: remembered, or asked once (a browser another server or run opened). */
  private async timeoutsOf(id: string): Promise<Timeouts> {
    const known = this.timeouts.get(id);
    if (known) return known;
    let res: Response;
    try {
      res = await this.fetch(`/session/${encodeURIComponent(id)}/timeouts`, {
        headers: this.headers(),
        signal: AbortSignal.timeout(this.commandMs),
      });
    } catch (err) {
      if (err instanceof DOMException) throw gridTimedOut(this.base, Math.round(this.commandMs / 1000));
      throw err;
    }
    const body = (await res.json().catch(() => null)) as { value?: Partial<Timeouts> } | null;
    // A gone browser says so on the command itself; until then, WebDriver's defaults.
    if (!res.ok || typeof body?.value !== "object" || body.value === null) return W3C_TIMEOUTS;
    this.remember(id, body.value);
    return this.timeouts.get(id) as Timeouts;
  }

  refusedCredentials(status: number): FlowError {
    return unavailable(
      `the Grid at ${this.base} refused this server (HTTP ${status}): check the user and password in the Grid URL`,
    );
  }
}

export class Grid {
  readonly url: string;
  private readonly base: string;
  private readonly http: GridHttpClient;
  private readonly executor: Executor;
  private readonly openTimeoutMs: number;
  /** Bookkeeping calls (status, alive, end): quick, and never past the command deadline. */
  private readonly quickMs: number;
  /** A file through the Grid: at least the command deadline. */
  private readonly fileMs: number;
  private readonly bidiOpenMs: number;

  /** `openTimeout`: seconds a new browser may wait for a slot; `commandTimeout`: seconds per command. */
  constructor(url: string, opts: { openTimeout?: number; commandTimeout?: number } = {}) {
    this.url = url;
    const { base, auth } = parseGridUrl(url);
    this.base = base;
    const commandMs = (opts.commandTimeout ?? 60) * 1000;
    this.bidiOpenMs = Math.min(BIDI_OPEN_MS, commandMs);
    this.http = new GridHttpClient(base, auth, commandMs);
    this.quickMs = Math.min(QUICK_MS, commandMs);
    this.fileMs = Math.max(FILE_MS, commandMs);
    // One executor (and so one pooled HTTP client) serves every reattached driver of this Grid.
    this.executor = new Executor(this.http as never);
    this.openTimeoutMs = (opts.openTimeout ?? 60) * 1000;
  }

  /** The new-session capabilities for `o` (pure). */
  capabilities(o: OpenOptions): Record<string, unknown> {
    const caps: Record<string, unknown> = {
      browserName: o.browser,
      // Every browser speaks BiDi, so a saved site can be restored into it; all else stays classic.
      webSocketUrl: true,
      "se:downloadsEnabled": true,
      // With BiDi on, any other behaviour settles a dialog the moment it opens, before the `dialog`
      // action can read or answer it. Classic calls meanwhile fail with "unexpected alert open".
      unhandledPromptBehavior: "ignore",
    };
    if (o.insecure) caps.acceptInsecureCerts = true;
    const timeouts: Record<string, number> = {};
    if (o.pageLoadTimeout !== undefined) timeouts.pageLoad = Math.round(o.pageLoadTimeout * 1000);
    if (o.scriptTimeout !== undefined) timeouts.script = Math.round(o.scriptTimeout * 1000);
    if (Object.keys(timeouts).length) caps.timeouts = timeouts;
    if (o.width !== undefined && o.height !== undefined) {
      if (o.browser === "firefox") {
        caps["moz:firefoxOptions"] = { args: ["-width", String(o.width), "-height", String(o.height)] };
      } else {
        caps["goog:chromeOptions"] = { args: [`--window-size=${o.width},${o.height}`] };
      }
    }
    // docker-selenium's recorders film every session not told otherwise: an unfilmed browser says so,
    // or its video lands in the inbox with no workspace to file it in.
    caps["se:recordVideo"] = o.record === true;
    if (o.record && o.videoName) caps["se:videoName"] = o.videoName;
    return caps;
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
      const res = await this.http.fetch("/status", {
        headers: this.http.headers(),
        signal: AbortSignal.timeout(this.quickMs),
      });
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
      return { ready: body.value.ready === true, message: scrub(String(body.value.message ?? "")) };
    } catch (err) {
      const why = err instanceof DOMException ? "no answer in time" : messageOf(err);
      return {
        ready: false,
        message: err instanceof FlowError ? why : `the Grid at ${this.base} did not answer: ${why}`,
      };
    }
  }

  /** The ids of every browser the Grid holds now (one /status call), or null when it did not answer. */
  async sessions(): Promise<Set<string> | null> {
    try {
      const res = await this.http.fetch("/status", {
        headers: this.http.headers(),
        signal: AbortSignal.timeout(this.quickMs),
      });
      const body = (await res.json().catch(() => null)) as {
        value?: { nodes?: Array<{ slots?: Array<{ session?: { sessionId?: unknown } | null }> }> };
      } | null;
      if (!body?.value) return null;
      const ids = new Set<string>();
      for (const node of body.value.nodes ?? []) {
        for (const slot of node.slots ?? []) {
          const id = slot.session?.sessionId;
          if (typeof id === "string") ids.add(id);
        }
      }
      return ids;
    } catch {
      return null;
    }
  }

  /**
   * The browser's managed downloads (`se:downloadsEnabled`, `GET /session/<id>/se/files`), newest
   * first. A browser that is gone has none.
   */
  async downloads(id: string): Promise<GridDownload[]> {
    const res = await this.fileCall(`/session/${encodeURIComponent(id)}/se/files`, { method: "GET" });
    const body = (await res.json().catch(() => null)) as {
      value?: {
        names?: unknown;
        files?: Array<{ name?: unknown; size?: unknown; lastModifiedTime?: unknown }>;
        error?: string;
        message?: string;
      };
    } | null;
    if (!res.ok) return this.fileRefusal(res.status, body?.value, []);
    const files = body?.value?.files;
    const out: GridDownload[] = Array.isArray(files)
      ? files
          .filter((f) => typeof f.name === "string")
          .map((f) => ({
            name: f.name as string,
            size: typeof f.size === "number" ? f.size : null,
            modified: typeof f.lastModifiedTime === "number" ? f.lastModifiedTime : null,
          }))
      : Array.isArray(body?.value?.names)
        ? (body.value.names as unknown[])
            .filter((n): n is string => typeof n === "string")
            .map((name) => ({ name, size: null, modified: null }))
        : [];
    return out.sort((a, b) => (b.modified ?? 0) - (a.modified ?? 0));
  }

  /**
   * One download's bytes, streamed (`GET /session/<id>/se/files/<name>`); a Grid too old for that
   * answers the zip of `POST …/se/files`. Null when the browser or the file is gone.
   */
  async download(
    id: string,
    name: string,
  ): Promise<{ body: ReadableStream<Uint8Array>; size: number | null } | null> {
    const base = `/session/${encodeURIComponent(id)}/se/files`;
    const res = await this.fileCall(`${base}/${encodeURIComponent(name)}`, { method: "GET" });
    const type = res.headers.get("content-type") ?? "";
    if (res.ok && res.body && !type.startsWith("application/json")) {
      const length = Number(res.headers.get("content-length") ?? "");
      return {
        body: res.body,
        size: Number.isFinite(length) && length >= 0 && res.headers.has("content-length") ? length : null,
      };
    }
    await res.body?.cancel();
    const zipped = await this.fileCall(base, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ name }),
    });
    const body = (await zipped.json().catch(() => null)) as {
      value?: { contents?: unknown; error?: string; message?: string };
    } | null;
    if (!zipped.ok || typeof body?.value?.contents !== "string")
      return this.fileRefusal(zipped.status, body?.value, null);
    const { data } = unzipOne(Buffer.from(body.value.contents, "base64"));
    return { body: new Blob([data as Uint8Array<ArrayBuffer>]).stream(), size: data.length };
  }

  /**
   * Puts a file on the browser's machine through the Grid (`POST /session/<id>/se/file`, a one-file
   * zip), so a file input can take it on a remote Grid too. The path to type into the input.
   */
  async upload(id: string, name: string, data: Uint8Array): Promise<string> {
    const res = await this.fileCall(`/session/${encodeURIComponent(id)}/se/file`, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ file: Buffer.from(zipOne(name, data)).toString("base64") }),
    });
    const body = (await res.json().catch(() => null)) as { value?: unknown } | null;
    const value = body?.value;
    if (res.ok && typeof value === "string") return value;
    const e = (value ?? {}) as { error?: string; message?: string };
    if (isNoSuchSession(new Error(`${e.error ?? ""}: ${e.message ?? ""}`))) {
      throw new wdError.NoSuchSessionError(scrub(e.message ?? "no such session"));
    }
    throw unavailable(`the Grid did not take the file: ${gridReason(e.message ?? `HTTP ${res.status}`)}`);
  }

  private async fileCall(path: string, init: RequestInit): Promise<Response> {
    let res: Response;
    try {
      res = await this.http.fetch(path, {
        ...init,
        headers: this.http.headers(init.headers as Record<string, string> | undefined),
        signal: AbortSignal.timeout(this.fileMs),
      });
    } catch (err) {
      if (err instanceof DOMException) throw unavailable(`the Grid at ${this.base} did not answer in time`);
      throw err;
    }
    if (res.status === 401 || res.status === 407) throw this.http.refusedCredentials(res.status);
    return res;
  }

  // A gone browser or file is `gone`; a Grid that cannot do managed downloads says so.
  private fileRefusal<T>(
    status: number,
    value: { error?: string; message?: string } | undefined,
    gone: T,
  ): T {
    const reason = `${value?.error ?? ""}: ${value?.message ?? ""}`;
    if (
      status === 404 ||
      isNoSuchSession(new Error(reason)) ||
      /no such file|cannot find file|not found/i.test(reason)
    ) {
      return gone;
    }
    throw unavailable(
      `the Grid could not list or read this browser's downloads (HTTP ${status}): ${gridReason(value?.message ?? "no reason given")}. Its nodes need managed downloads enabled`,
    );
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
      ...(auth ? { headers: { authorization: auth } } : {}),
    });
  }

  // Our wait ran out, or the Grid's queue gave up. If the Grid has nodes but none of this browser,
  // waiting longer would never help: say so rather than "busy".
  private async noSlot(browser: string): Promise<FlowError> {
    try {
      const res = await this.http.fetch("/status", {
        headers: this.http.headers(),
        signal: AbortSignal.timeout(this.quickMs),
      });
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
