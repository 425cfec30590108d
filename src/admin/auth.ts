// The way in, one gate for every request: the Host, Origin and path every request passes
// (src/http/guard.ts's rules), then the credential its route takes, the agent token (REST, /mcp,
// /openapi.json) or the admin's. The admin's is the bearer token, or the UI's cookie. The cookie
// carries a random sign-in id, never the token; the store keeps a digest of it (so every server of a
// group honours it, and a copy of the store cannot sign anyone in) until it expires. A cookie-signed
// request that changes something must come from this server's own pages (Origin, or
// Sec-Fetch-Site: same-origin): SameSite ignores ports, so any page on 127.0.0.1:* is "same site".

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { parseCookie } from "cookie";
import { LRUCache } from "lru-cache";
import type { Config } from "../config/schema.ts";
import { badInput, forbidden, TooMany, unauthorized } from "../errors.ts";
import { changes, type HostRules, pathProblem, requestHost } from "../http/guard.ts";
import type { RecordStore } from "../store/types.ts";

export const ADMIN_COOKIE = "sf_admin";
/** Seconds a sign-in lasts. */
export const SIGN_IN_SECONDS = 12 * 60 * 60;

/** Wrong tokens a client address may send in a window before it must wait. */
export const SIGN_IN_TRIES = 5;
const WINDOW_MS = 60_000;
// The limiter forgets the oldest addresses beyond this many, so a spray of addresses stays small.
const MAX_ADDRESSES = 10_000;

/** Compares digests, so neither the time taken nor an early exit says how long the token is. */
export function sameToken(given: string, token: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(token).digest();
  return timingSafeEqual(a, b);
}

export function bearerOf(request: Request): string | null {
  const m = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "");
  return m ? (m[1] as string).trim() : null;
}

/** The admin cookie's value, or null; a value that is not valid percent-encoding is a 400. */
export function adminCookie(request: Request): string | null {
  // Decoded here rather than by the parser, which keeps a malformed value as it came.
  const raw = parseCookie(request.headers.get("cookie") ?? "", { decode: (v) => v })[ADMIN_COOKIE];
  if (raw === undefined) return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw badInput(`the ${ADMIN_COOKIE} cookie is not valid percent-encoding: sign in again`);
  }
}

/** The token the admin API and pages take: auth.admin_token, or auth.token when it is unset. */
export function adminTokenOf(config: Config): string | null {
  return config.auth.admin_token ?? config.auth.token;
}

/** The 401 of an admin route given the agent token (auth.admin_token set: the two differ). */
export const AGENT_TOKEN_ON_ADMIN =
  "this route takes the admin token (auth.admin_token, AUTH_ADMIN_TOKEN); the agent token (auth.token) was given";
/** The 401 of an agent route (REST, /mcp, /openapi.json) given the admin token. */
export const ADMIN_TOKEN_ON_AGENT =
  "this route takes the agent token (auth.token, AUTH_TOKEN); the admin token (auth.admin_token) was given";

/**
 * The agent token when it is not the admin one (auth.admin_token set): the token a caller of an
 * admin route may have sent by mistake, so its 401 can say which token the route takes.
 */
export function agentOnlyTokenOf(config: Config): string | null {
  return config.auth.admin_token ? config.auth.token : null;
}

/** Every path under /admin: each takes only the admin credential, whoever registers the route. */
export function isAdminPath(path: string): boolean {
  return path === "/admin" || path.startsWith("/admin/");
}

/** The boot log's line on who may use the admin routes. */
export function credentialsLine(config: Config): string {
  if (config.auth.admin_token)
    return "credentials: auth.admin_token opens the admin routes and pages, auth.token the agent routes only";
  if (config.auth.token)
    return "credentials: one token (auth.token) opens both the agent and the admin routes; set auth.admin_token (AUTH_ADMIN_TOKEN) to keep agents out of /admin";
  return "credentials: no token set; every route is open (loopback only)";
}

const digest = (id: string) => createHash("sha256").update(`sf-admin-session:${id}`).digest("hex");
const SIGN_IN_ID = /^[A-Za-z0-9_-]{43}$/;

export type AdminCredential = "open" | "bearer" | "cookie";

/** The path of MCP over Streamable HTTP: one route of every method (src/app.ts). */
const MCP_PATH = "/mcp";

export class Gate {
  /** The token the admin routes take, and the agent token when it is another (named in their 401). */
  private readonly token: string | null;
  private readonly agentToken: string | null;

  constructor(
    private readonly store: Pick<RecordStore, "putSignIn" | "hasSignIn" | "dropSignIn">,
    private readonly auth: Pick<Config["auth"], "token" | "admin_token">,
    private readonly hosts: HostRules,
  ) {
    this.token = auth.admin_token ?? auth.token;
    this.agentToken = auth.admin_token ? auth.token : null;
  }

  /**
   * Before any route: a Host this server answers to (a DNS-rebinding page names its own; /healthz
   * answers any Host: probes use the pod's IP), no state-changing request from another origin's page,
   * a path that decodes and names each of its parts; then under /admin the admin credential, by
   * prefix (a route added under /admin is the admin's before any handler runs), and at /mcp the agent
   * token and no page on another origin, whatever the method, before a byte is read.
   */
  async check(request: Request): Promise<void> {
    // A Host that is no host name (a space, a bad port, a lone '[') leaves no URL to read.
    if (!URL.canParse(request.url)) {
      throw badInput("the Host header is not a host name (and port): send this server's own address", "host");
    }
    const { pathname } = new URL(request.url);
    const host = requestHost(request);
    if (pathname !== "/healthz" && !this.hosts.allows(host)) {
      throw forbidden(
        "this server does not answer to that Host: call it by its own address, or add the name to http.allowed_hosts (HTTP_ALLOWED_HOSTS)",
      );
    }
    const origin = request.headers.get("origin");
    if (origin !== null && changes(request) && !this.hosts.ownOrigin(origin, host)) {
      throw forbidden("a request from a page on another origin may not change anything here");
    }
    const problem = pathProblem(pathname);
    if (problem) throw badInput(problem);
    if (isAdminPath(pathname)) await this.admin(request);
    else if (pathname === MCP_PATH) {
      this.agent(request);
      if (origin !== null && !this.hosts.ownOrigin(origin, host))
        throw forbidden("requests to /mcp from a web page on another origin are refused");
    }
  }

  /**
   * Throws 401 unless the request carries the agent token (no token configured: loopback only,
   * open). The admin token, when it is a token of its own, is named as the wrong one.
   */
  agent(request: Request): void {
    const { token, admin_token } = this.auth;
    if (!token) return;
    const given = bearerOf(request);
    if (given !== null && sameToken(given, token)) return;
    if (given !== null && admin_token && sameToken(given, admin_token))
      throw unauthorized(ADMIN_TOKEN_ON_AGENT);
    throw unauthorized();
  }

  /** A new sign-in: the id for the cookie (its digest is what the store keeps). */
  async signIn(): Promise<string> {
    const id = randomBytes(32).toString("base64url");
    await this.store.putSignIn(digest(id), SIGN_IN_SECONDS);
    return id;
  }

  async signOut(request: Request): Promise<void> {
    const id = adminCookie(request);
    if (id && SIGN_IN_ID.test(id)) await this.store.dropSignIn(digest(id));
  }

  /** How the request is signed in; 401 when it is not. No token configured: open (loopback only). */
  async credential(request: Request): Promise<AdminCredential> {
    if (!this.token) return "open";
    const bearer = bearerOf(request);
    if (bearer !== null && sameToken(bearer, this.token)) return "bearer";
    const id = adminCookie(request);
    if (id && SIGN_IN_ID.test(id) && (await this.store.hasSignIn(digest(id)))) return "cookie";
    if (bearer !== null && this.agentToken && sameToken(bearer, this.agentToken))
      throw unauthorized(AGENT_TOKEN_ON_ADMIN);
    throw unauthorized();
  }

  /** The admin's: 401 without credentials; 403 for a cookie-signed change that did not come from our own pages. */
  async admin(request: Request): Promise<AdminCredential> {
    const how = await this.credential(request);
    if (how === "cookie" && changes(request) && !this.fromOwnPage(request)) {
      throw forbidden(
        "a signed-in change must come from this server's own pages: the request's Origin is not this server",
      );
    }
    return how;
  }

  private fromOwnPage(request: Request): boolean {
    const origin = request.headers.get("origin");
    if (origin !== null) return this.hosts.ownOrigin(origin, requestHost(request));
    return request.headers.get("sec-fetch-site") === "same-origin";
  }
}

/** Wrong sign-ins per client address: after SIGN_IN_TRIES in a minute, 429 until the oldest ages out. */
export class SignInLimiter {
  private readonly failures = new LRUCache<string, number[]>({ max: MAX_ADDRESSES });

  constructor(private readonly clock: () => number = Date.now) {}

  /** Throws TooMany while `address` must wait. */
  check(address: string): void {
    const recent = this.recent(address);
    if (recent.length < SIGN_IN_TRIES) return;
    const wait = Math.max(1, Math.ceil((recent[0]! + WINDOW_MS - this.clock()) / 1000));
    throw new TooMany(
      `too many wrong tokens from this address: wait ${wait} s before signing in again`,
      wait,
    );
  }

  failed(address: string): void {
    const recent = this.recent(address);
    recent.push(this.clock());
    this.failures.set(address, recent);
  }

  private recent(address: string): number[] {
    const cutoff = this.clock() - WINDOW_MS;
    const kept = (this.failures.get(address) ?? []).filter((t) => t > cutoff);
    if (kept.length === 0) this.failures.delete(address);
    return kept;
  }
}
