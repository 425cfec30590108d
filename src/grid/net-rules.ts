// What a browser's network may do, enforced by the browser itself: one BiDi intercept at
// beforeRequestSent for every request of every tab, frame and worker (redirects, pop-ups, fetch and
// XHR included), answered over the held connection: refused by the navigation policy (the request
// fails), answered or failed by a route (routes.ts), or let through. Installed only on a browser
// with a policy, routes or a proxy that signs in, so one without pays nothing.
//
// An intercept outlives the connection that added it, and the browser waits for an answer to each
// request it blocks: so the connection is kept open for the browser's life (held-pool.ts), and one
// that dropped leaves the browser's requests waiting (never unchecked) until the next connection,
// which answers them too and removes the orphan. A connection without rules lets an orphan's
// requests go and removes it (the server that set it no longer has rules for the browser).

import type { Network } from "webdriver-bidi-protocol";
import type { BidiSocket } from "./bidi.ts";
import type { EventRing } from "./event-log.ts";
import { type NavPolicy, type Refusal, refusalText } from "./policy.ts";
import { answer, type Routed, routeFor } from "./routes.ts";

/**
 * The one path the server answers itself, on any origin: site data's spare page
 * (src/site-data/spare-page.ts). Only this path is intercepted there: a leftover intercept can never
 * hold up a real page; the rules here let it be.
 */
export const SPARE_PATH = "/__selenium-flow-spare__";

/** A request refused in a context, for the call that sent it there (navigate's 400). */
interface Refused extends Refusal {
  url: string;
  at: number;
}

/** The rules one browser's requests follow; the same key: the same rules. */
export interface NetRules {
  policy: NavPolicy | null;
  /** The workspace's routes (routes.ts): requests they match are answered or failed here. */
  routes: Routed[] | null;
  /** What the browser answers its proxy's sign-in with (a 407); null: the proxy asks none. */
  auth: { username: string; password: string } | null;
  /** Changes whenever the rules do. */
  readonly key: string;
}

export class Interceptor {
  private intercept: string | null = null;
  private phases = "";
  private offs: (() => void)[] = [];
  /** Tabs a page opened (pop-ups), the newest few. */
  private readonly popups = new Set<string>();
  /** Requests whose proxy sign-in was answered once: a second challenge is a refusal. */
  private readonly signedIn = new Set<string>();
  /** The last request refused per context (tab or frame). */
  private readonly refused = new Map<string, Refused>();
  /** Requests refused since the connection opened. */
  count = 0;

  constructor(
    private readonly socket: BidiSocket,
    private readonly ring: EventRing,
    private rules: NetRules,
  ) {}

  get key(): string {
    return this.rules.key;
  }

  /** Intercepts what `rules` need (once; again when the phases change), with `rules` from now on. */
  async install(rules: NetRules = this.rules): Promise<void> {
    this.rules = rules;
    const phases: Network.InterceptPhase[] = [
      ...(rules.policy || rules.routes ? (["beforeRequestSent"] as const) : []),
      ...(rules.auth ? (["authRequired"] as const) : []),
    ];
    if (this.intercept && this.phases === phases.join()) return;
    await this.remove();
    this.phases = phases.join();
    this.offs = [
      this.socket.on("network.beforeRequestSent", null, (p) => this.decide(p)),
      this.socket.on("network.authRequired", null, (p) => this.signIn(p)),
      this.socket.on("browsingContext.contextCreated", null, (c) => {
        if (!c.originalOpener || c.parent) return;
        if (this.popups.size > 100) this.popups.clear();
        this.popups.add(c.context);
      }),
      this.socket.on("browsingContext.navigationStarted", null, (p) => this.popupAway(p.context, p.url)),
    ];
    if (rules.auth) await this.socket.subscribe(["network.authRequired"]);
    this.intercept = (
      await this.socket.send("network.addIntercept", { phases: phases as [Network.InterceptPhase] })
    ).intercept;
  }

  /** Stops intercepting: requests go their way unasked. */
  async remove(): Promise<void> {
    for (const off of this.offs.splice(0)) off();
    const id = this.intercept;
    this.intercept = null;
    if (id) await this.socket.send("network.removeIntercept", { intercept: id }).catch(() => undefined);
  }

  /**
   * A pop-up sent toward a refused host is closed. Chromium may send a new tab's first request
   * before the tab can be intercepted, so its page must not stay for the agent to read.
   */
  private popupAway(context: string, url: string): void {
    if (!this.popups.has(context)) return;
    const refusal = this.rules.policy?.refusal(url);
    if (!refusal) return;
    this.count++;
    this.ring.notice(`a pop-up toward ${url} was closed: ${refusalText(refusal)}`);
    this.refused.set(context, { ...refusal, url, at: Date.now() });
    void this.socket.send("browsingContext.close", { context }).catch(() => undefined);
  }

  /**
   * A proxy asks who this is: its user name and password, once per request (Chromium 156 gives a
   * proxy's challenge status -1, not 407); a site's 401 is left to the browser.
   */
  private signIn(p: Network.BaseParameters & { response: { status: number } }): void {
    // Only this intercept asks at authRequired (Chromium may leave its id out of the event).
    if (!p.isBlocked || !this.intercept) return;
    const request = p.request.request;
    const auth = this.rules.auth;
    if (p.response.status === 401 || !auth) {
      void this.socket
        .send("network.continueWithAuth", { request, action: "default" })
        .catch(() => undefined);
      return;
    }
    if (this.signedIn.has(request)) {
      void this.socket.send("network.continueWithAuth", { request, action: "cancel" }).catch(() => undefined);
      return;
    }
    if (this.signedIn.size > 1000) this.signedIn.clear();
    this.signedIn.add(request);
    void this.socket
      .send("network.continueWithAuth", {
        request,
        action: "provideCredentials",
        credentials: { type: "password", ...auth },
      })
      .catch(() => undefined);
  }

  /** The last request refused in `context` at or after `since` (ms, this clock). */
  refusedIn(context: string, since: number): Refused | null {
    const r = this.refused.get(context);
    return r && r.at >= since ? r : null;
  }

  private decide(p: Network.BaseParameters): void {
    // Every blocked request is answered here, an orphan's too, but a spare tab's marked page (its
    // own intercept answers it: never sent out).
    if (!p.isBlocked || !this.intercept || spare(p)) return;
    const request = p.request.request;
    dropOrphans(this.socket, p);
    const refusal = this.rules.policy?.refusal(p.request.url) ?? null;
    if (refusal) {
      this.count++;
      const why = refusalText(refusal);
      this.ring.refuse(request, p.redirectCount, why);
      if (p.context) {
        if (this.refused.size > 1000) this.refused.clear();
        this.refused.set(p.context, { ...refusal, url: p.request.url, at: Date.now() });
      }
      void this.socket.send("network.failRequest", { request }).catch(() => undefined);
      return;
    }
    const route = routeFor(this.rules.routes, p.request.url);
    if (route) {
      if (route.block) this.ring.refuse(request, p.redirectCount, `blocked by the route ${route.url}`);
      void answer(this.socket, request, route).catch(() => undefined);
      return;
    }
    void this.socket.send("network.continueRequest", { request }).catch(() => undefined);
  }
}

const spare = (p: Network.BaseParameters) => {
  try {
    return new URL(p.request.url).pathname === SPARE_PATH;
  } catch {
    return false;
  }
};

/** The intercepts of earlier connections this one found and removed, per connection. */
const ORPHANS = Symbol("orphan intercepts");

/** Removes the intercepts blocking `p` that this connection did not add (judged only when none is being added). */
function dropOrphans(socket: BidiSocket, p: Network.BaseParameters): void {
  if (socket.addingIntercept) return;
  const seen = socket.attached(ORPHANS, () => new Set<string>());
  for (const id of p.intercepts ?? []) {
    if (socket.intercepts.has(id) || seen.has(id)) continue;
    seen.add(id);
    void socket.send("network.removeIntercept", { intercept: id }).catch(() => undefined);
  }
}

/**
 * On a connection without rules: a request blocked only by intercepts of an earlier connection (the
 * browser's rules were dropped since, or the server restarted without them) goes on, and those are removed.
 */
export function releaseOrphan(socket: BidiSocket, p: Network.BaseParameters): void {
  if (!p.isBlocked || spare(p) || !p.intercepts?.length || socket.addingIntercept) return;
  if (p.intercepts.some((id) => socket.intercepts.has(id))) return;
  dropOrphans(socket, p);
  void socket.send("network.continueRequest", { request: p.request.request }).catch(() => undefined);
}
