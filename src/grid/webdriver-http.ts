// selenium-webdriver's HTTP client on Bun's fetch: the Grid URL's credentials, and each command's deadline.
import { LRUCache } from "lru-cache";
import { Response as WdResponse } from "selenium-webdriver/http";
import { type AppError, badInput, messageOf, redactCredentials, unavailable } from "../errors.ts";
import { gridTimedOut } from "./webdriver-errors.ts";

// A page load or a script may take the browser's own timeout; the driver's answer gets this long
// after it to arrive, so the caller reads the driver's reason rather than ours.
const DRIVER_MARGIN_MS = 5_000;
// WebDriver's defaults, for a browser whose timeouts this server never learnt.
export const W3C_TIMEOUTS: Timeouts = { pageLoad: 300_000, script: 30_000 };
// Browsers whose timeouts are remembered; past this many the oldest are forgotten (and asked again).
const KNOWN_BROWSERS = 10_000;

/** A browser's page load and script timeouts, ms. */
export interface Timeouts {
  pageLoad: number;
  script: number;
}

// POST commands that may take the browser's page load timeout, or its script timeout.
const PAGE_LOADS = /^\/session\/([^/]+)\/(?:url|back|forward|refresh)$/;
const SCRIPTS = /^\/session\/([^/]+)\/execute\/(?:sync|async)$/;
const SET_TIMEOUTS = /^\/session\/([^/]+)\/timeouts$/;

/** The Grid URL split into a credential-free base and its Basic auth header, if it had credentials. */
export function parseGridUrl(url: string): { base: string; auth: string | null } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw badInput(`the Grid URL is not a URL: ${redactCredentials(url)}`);
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
export class GridHttpClient {
  private readonly timeouts = new LRUCache<string, Timeouts>({ max: KNOWN_BROWSERS });

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
    this.timeouts.set(id, {
      pageLoad: typeof t.pageLoad === "number" ? t.pageLoad : known.pageLoad,
      script: typeof t.script === "number" ? t.script : known.script,
    });
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

  refusedCredentials(status: number): AppError {
    return unavailable(
      `the Grid at ${this.base} refused this server (HTTP ${status}): check the user and password in the Grid URL`,
    );
  }
}
