// A fake BiDi socket for unit tests of ordering and failure paths: tabs, a path-scoped intercept
// that answers through the caller's handler, storage per origin (and per tab for sessionStorage),
// a cookie jar, and scripts evaluated for real against fake `document`, `location` and storages.

import type { Network, Storage } from "webdriver-bidi-protocol";
import type { BidiSocket } from "../../src/grid/bidi.ts";
import { Log } from "../../src/log.ts";

export class FakeStorage {
  private readonly map = new Map<string, string>();
  constructor(items: Record<string, string> = {}) {
    for (const [k, v] of Object.entries(items)) this.map.set(k, v);
  }
  get length(): number {
    return this.map.size;
  }
  key(i: number): string | null {
    return [...this.map.keys()][i] ?? null;
  }
  getItem(k: string): string | null {
    return this.map.get(k) ?? null;
  }
  setItem(k: string, v: string): void {
    this.map.set(k, String(v));
  }
  removeItem(k: string): void {
    this.map.delete(k);
  }
  items(): Record<string, string> {
    return Object.fromEntries(this.map);
  }
}

/** A document as the fake's scripts see it: its origin, whether it is the spare page, its storages. */
export interface FakePage {
  origin: string;
  marked: boolean;
  local: FakeStorage;
  session: FakeStorage;
  title?: string;
  /** False in a frame. */
  top?: boolean;
  /** location.replace: the tab goes there, as the browser does, after the script. */
  go?: (url: string) => void;
  /** navigator.hardwareConcurrency (unknown when absent). */
  cores?: number;
  /** location.pathname ("/" unless told). */
  path?: string;
  /** A frame whose storage is partitioned: a SameSite=Strict cookie set there is refused. */
  partitioned?: boolean;
}

function globalsOf(page: FakePage): unknown[] {
  // document.cookie, as far as the spare frames' site check needs it: set, read, max-age=0 takes out.
  const jar = new Map<string, string>();
  const document = {
    querySelector: (sel: string) => (page.marked && sel.includes("selenium-flow-spare") ? {} : null),
    title: page.title ?? "",
    get cookie() {
      return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    },
    set cookie(line: string) {
      const [pair = "", ...attrs] = line.split(";").map((x) => x.trim());
      const [name = "", value = ""] = pair.split("=");
      if (page.partitioned && attrs.some((a) => /^samesite=strict$/i.test(a))) return;
      if (attrs.some((a) => /^max-age=0$/i.test(a))) jar.delete(name);
      else jar.set(name, value);
    },
  };
  const window: { top?: unknown } = {};
  window.top = page.top === false ? {} : window;
  const location = {
    origin: page.origin,
    pathname: page.path ?? "/",
    replace: (url: string) => page.go?.(String(url)),
  };
  // The host's own unless the page says (a fake browser's cores never depend on the machine).
  const navigator = page.cores === undefined ? globalThis.navigator : { hardwareConcurrency: page.cores };
  return [document, location, page.local, page.session, window, navigator];
}

const GLOBALS = ["document", "location", "localStorage", "sessionStorage", "window", "navigator"];

/** Runs `expression` as a page at `origin` would, with `marked` saying whether it is the spare page. */
export function evaluateOn(expression: string, page: FakePage): unknown {
  return new Function(...GLOBALS, `return (${expression});`)(...globalsOf(page));
}

/** Calls the function declaration `declaration` with `args` as a page at `origin` would. */
export function callOn(declaration: string, args: unknown[], page: FakePage): unknown {
  const fn = new Function(...GLOBALS, `return (${declaration});`)(...globalsOf(page)) as (
    ...a: unknown[]
  ) => unknown;
  return fn(...args);
}

interface Tab {
  url: string;
  marked: boolean;
  /** A frame's tab (its parent context); none for a tab. */
  parent?: string;
}

type Failure = (method: string, params: any) => Error | undefined | null;

export interface FakeOptions {
  cookies?: Network.Cookie[];
  /** Origins whose service worker answers: the page has no marker. */
  workers?: string[];
  /** Origins the tab never reaches: it stays on its last page. */
  stuck?: string[];
  /** An error for a command, or nothing to let it through. */
  fail?: Failure;
  /** about:blank is announced committed, never parsed nor loaded (as a browser may). */
  quietBlank?: boolean;
  /** http origins the browser upgrades to https (HSTS) on the way. */
  upgrade?: string[];
  /** ms a command waits before the browser takes it (none unless told). */
  delayMs?: (method: string, params: any) => number | undefined;
  /** setCookie succeeds but the cookie never enters the jar. */
  drop?: string[];
  /** ms each navigate takes (or takes to the url given). */
  navigateMs?: number | ((url: string) => number);
  /** Origins whose navigation never answers. */
  hang?: string[];
  /** ms a tab takes to close; the log then says `closed <tab>`. */
  closeMs?: number;
  /** The browser machine's cores, as its pages say (unknown unless told). */
  cores?: number;
  /** ms a spare-tab visit's answer takes to come back once its script ran; the log then says `replied <tab>`. */
  visitReplyMs?: number;
  /** Origins whose frames under a page of another site's are partitioned (their storage is not the site's own). */
  partitioned?: string[];
  /** ms a frame of that origin takes before its request goes (its page is parsed after). */
  frameMs?: Record<string, number>;
}

export class FakeBidi {
  /** The server's log, as a real socket carries it. */
  readonly logger = new Log("warn");
  readonly log: string[] = [];
  readonly responses: Array<Record<string, unknown>> = [];
  readonly jar: Network.Cookie[];
  readonly local = new Map<string, FakeStorage>();
  /** sessionStorage per tab, per origin. */
  readonly session = new Map<string, Map<string, FakeStorage>>();
  /** Contexts whose handler went while their intercept was still in place (never, in teardown). */
  readonly handlerGoneFirst: string[] = [];
  readonly tabs = new Map<string, Tab>([["main", { url: "about:blank", marked: false }]]);
  /** Titles pages show, by url. */
  readonly titles = new Map<string, string>();
  private readonly listeners: Array<{ event: string; context: string | null; fn: (e: any) => unknown }> = [];
  private intercepts = new Map<string, { contexts: string[]; pathname?: string }>();
  /** Preload scripts by id: each runs in every new document of its contexts (all, when none). */
  readonly preloads = new Map<string, { declaration: string; sandbox?: string; contexts?: string[] }>();
  private subscriptions = new Map<string, string[]>();
  private n = 0;
  private tabsMade = 0;

  constructor(private readonly opts: FakeOptions = {}) {
    this.jar = [...(opts.cookies ?? [])];
  }

  private readonly attachments = new Map<symbol, unknown>();
  /** As the real socket's: what a part keeps for this connection. */
  attached<T>(key: symbol, make: () => T): T {
    if (!this.attachments.has(key)) this.attachments.set(key, make());
    return this.attachments.get(key) as T;
  }

  /** Typed as the real socket for the code under test. */
  get socket(): BidiSocket {
    return this as unknown as BidiSocket;
  }

  localOf(origin: string): FakeStorage {
    let s = this.local.get(origin);
    if (!s) {
      s = new FakeStorage();
      this.local.set(origin, s);
    }
    return s;
  }

  sessionOf(tab: string, origin: string): FakeStorage {
    let byOrigin = this.session.get(tab);
    if (!byOrigin) {
      byOrigin = new Map();
      this.session.set(tab, byOrigin);
    }
    let s = byOrigin.get(origin);
    if (!s) {
      s = new FakeStorage();
      byOrigin.set(origin, s);
    }
    return s;
  }

  on(event: string, context: string | null, fn: (e: any) => unknown): () => void {
    const l = { event, context, fn };
    this.listeners.push(l);
    this.log.push(`on ${event} ${context}`);
    return () => {
      const i = this.listeners.indexOf(l);
      if (i >= 0) this.listeners.splice(i, 1);
      this.log.push(`off ${event} ${context}`);
      const held = [...this.intercepts.values()].some(
        (x) => context !== null && x.contexts.includes(context),
      );
      if (held && event === "network.beforeRequestSent") this.handlerGoneFirst.push(String(context));
    };
  }

  async subscribe(events: string[], contexts?: string[]): Promise<string> {
    return (await this.send("session.subscribe", { events, contexts })).subscription as string;
  }

  async unsubscribe(subscription: string): Promise<void> {
    await this.send("session.unsubscribe", { subscriptions: [subscription] });
  }

  /** An event for `context`, to every listener of it there or everywhere (as the socket routes them). */
  private emit(event: string, context: string, params: unknown): void {
    for (const l of [...this.listeners]) {
      if (l.event === event && (l.context === null || l.context === context)) l.fn(params);
    }
  }

  /** Listeners still attached (a teardown leaves none). */
  get handlers(): number {
    return this.listeners.length;
  }

  get openIntercepts(): number {
    return this.intercepts.size;
  }

  async send(method: string, params: any): Promise<any> {
    this.log.push(this.describe(method, params));
    // A command takes effect when the browser gets to it, never during the call that sends it.
    await null;
    const slow = this.opts.delayMs?.(method, params);
    if (slow) await Bun.sleep(slow);
    const err = this.opts.fail?.(method, params);
    if (err) throw err;
    switch (method) {
      case "browsingContext.create": {
        const context = `spare-${++this.tabsMade}`;
        this.tabs.set(context, { url: "about:blank", marked: false });
        return { context };
      }
      case "browsingContext.close":
        if (this.opts.closeMs) {
          await Bun.sleep(this.opts.closeMs);
          this.log.push(`closed ${params.context}`);
        }
        this.tabs.delete(params.context);
        for (const [c, f] of [...this.tabs]) if (f.parent === params.context) this.tabs.delete(c);
        return {};
      case "network.addIntercept": {
        const intercept = `intercept-${++this.n}`;
        this.intercepts.set(intercept, {
          contexts: params.contexts ?? [],
          pathname: params.urlPatterns?.[0]?.pathname,
        });
        return { intercept };
      }
      case "network.removeIntercept":
        this.intercepts.delete(params.intercept);
        return {};
      case "script.addPreloadScript": {
        const script = `preload-${++this.n}-${params.contexts?.join(",") ?? "all"}`;
        this.preloads.set(script, {
          declaration: params.functionDeclaration,
          sandbox: params.sandbox,
          contexts: params.contexts,
        });
        return { script };
      }
      case "script.removePreloadScript":
        if (!this.preloads.delete(params.script)) throw new Error("no such script");
        return {};
      case "session.subscribe": {
        const subscription = `subscription-${++this.n}`;
        this.subscriptions.set(subscription, params.contexts ?? []);
        return { subscription };
      }
      case "session.unsubscribe":
        for (const s of params.subscriptions) this.subscriptions.delete(s);
        return {};
      case "network.provideResponse":
        this.responses.push(params);
        return {};
      case "browsingContext.navigate":
        return this.navigate(params.context, params.url);
      case "script.evaluate":
        return this.evaluate(params.target.context, params.expression);
      case "script.callFunction": {
        const reply = await this.callFunction(
          params.target.context,
          params.functionDeclaration,
          (params.arguments ?? []).map((a: { value?: unknown }) => a.value),
        );
        if (this.opts.visitReplyMs && String(params.functionDeclaration).includes("selenium-flow-spare")) {
          await Bun.sleep(this.opts.visitReplyMs);
          this.log.push(`replied ${params.target.context}`);
        }
        return reply;
      }
      case "browsingContext.getTree": {
        const entries = [...this.tabs.entries()];
        const all = entries
          .filter(([, t]) => !t.parent)
          .map(([context, t]) => ({
            context,
            url: t.url,
            parent: null,
            children: entries
              .filter(([, f]) => f.parent === context)
              .map(([c, f]) => ({ context: c, url: f.url, parent: context, children: [] })),
          }));
        return { contexts: params.root ? all.filter((c) => c.context === params.root) : all };
      }
      case "storage.getCookies":
        return { cookies: this.jar.map((c) => ({ ...c })), partitionKey: {} };
      case "storage.setCookie": {
        const c = params.cookie as Storage.PartialCookie;
        if (this.opts.drop?.includes(c.name)) return { partitionKey: {} };
        this.jar.push({
          name: c.name,
          value: c.value,
          domain: c.domain,
          path: c.path ?? "/",
          size: 0,
          httpOnly: c.httpOnly ?? false,
          secure: c.secure ?? false,
          sameSite: c.sameSite ?? "none",
          ...(c.expiry !== undefined ? { expiry: c.expiry } : {}),
        });
        return { partitionKey: {} };
      }
      default:
        throw new Error(`the fake has no ${method}`);
    }
  }

  private describe(method: string, p: any): string {
    switch (method) {
      case "browsingContext.create":
        return `create ${p.type}${p.background ? " background" : ""}`;
      case "browsingContext.close":
        return `close ${p.context}`;
      case "network.addIntercept":
        return `intercept ${p.phases.join(",")} [${p.contexts}] ${p.urlPatterns?.[0]?.pathname ?? "*"}`;
      case "network.removeIntercept":
        return "unintercept";
      case "session.subscribe":
        return `subscribe ${p.events.join(",")} [${p.contexts ?? ""}]`;
      case "session.unsubscribe":
        return "unsubscribe";
      case "network.provideResponse":
        return `respond ${p.request}`;
      case "browsingContext.navigate":
        return `navigate ${p.context} ${p.url}${p.wait ? ` ${p.wait}` : ""}`;
      case "script.evaluate":
        return `evaluate ${p.target.context}${p.awaitPromise ? " await" : ""}`;
      case "script.addPreloadScript":
        return `preload [${p.contexts ?? ""}] ${p.sandbox ?? "page"}`;
      case "script.removePreloadScript":
        return `unpreload ${p.script}`;
      case "script.callFunction":
        // A spare-tab visit names its origin (its first argument).
        return String(p.functionDeclaration).includes("selenium-flow-spare")
          ? `visit ${p.target.context} ${p.arguments?.[0]?.value}`
          : `call ${p.target.context}`;
      case "storage.setCookie":
        return `setCookie ${p.cookie.name} ${p.cookie.sameSite ?? "-"}`;
      default:
        return method;
    }
  }

  /** Navigations under way now, and the most there ever were at once. */
  navigating = 0;
  mostNavigating = 0;

  private async navigate(context: string, url: string): Promise<unknown> {
    const tab = this.tabs.get(context);
    if (!tab) throw new Error("no such frame");
    this.navigating++;
    this.mostNavigating = Math.max(this.mostNavigating, this.navigating);
    try {
      const ms = this.opts.navigateMs;
      const wait = typeof ms === "function" ? ms(url) : ms;
      if (wait) await Bun.sleep(wait);
      if (url !== "about:blank" && this.opts.hang?.includes(new URL(url).origin)) await new Promise(() => {});
      return await this.land(context, tab, url);
    } finally {
      this.navigating--;
    }
  }

  private async land(context: string, tab: Tab, asked: string): Promise<unknown> {
    // A new document: the old one's frames are gone.
    for (const [c, f] of [...this.tabs]) if (f.parent === context) this.tabs.delete(c);
    // A site the browser knows as secure is reached over https, whatever was asked.
    const url = this.opts.upgrade?.includes(asked.split("/").slice(0, 3).join("/"))
      ? asked.replace(/^http:/, "https:")
      : asked;
    if (url === "about:blank") {
      tab.url = url;
      tab.marked = false;
      return this.arrived(context, url);
    }
    const u = new URL(url);
    if (this.opts.stuck?.includes(u.origin)) return { navigation: "n", url: tab.url };
    const intercepted = [...this.intercepts.entries()].find(
      ([, i]) => i.contexts.includes(context) && (!i.pathname || i.pathname === u.pathname),
    );
    const subscribed = [...this.subscriptions.values()].some(
      (ctxs) => ctxs.length === 0 || ctxs.includes(context),
    );
    tab.url = url;
    tab.marked = false;
    if (this.opts.workers?.includes(u.origin)) return this.arrived(context, url);
    if (intercepted && subscribed) {
      const body = await this.request(context, url, intercepted[0]);
      tab.marked = body.includes("selenium-flow-spare");
      const srcs = [...body.matchAll(/<iframe src="([^"]*)"><\/iframe>/g)].map((m) => m[1] ?? "");
      if (srcs.length) {
        // The page is parsed first; its frames load side by side, then the page's load.
        const parsed = this.arrived(context, url, false);
        void Promise.all(
          srcs.map((src, k) => this.frameLoads(context, url, `${context}.f${k + 1}`, src, intercepted[0])),
        ).then(() => {
          if (this.tabs.get(context)?.url === url)
            this.emit("browsingContext.load", context, { context, navigation: "n", timestamp: 0, url });
        });
        return parsed;
      }
    }
    return this.arrived(context, url);
  }

  /** A frame of `context`'s page at `url`: created, its request answered, then parsed and loaded. */
  private async frameLoads(
    context: string,
    url: string,
    frame: string,
    src: string,
    intercept: string,
  ): Promise<void> {
    const f: Tab = { url: src, marked: false, parent: context };
    this.tabs.set(frame, f);
    this.emit("browsingContext.contextCreated", frame, {
      context: frame,
      parent: context,
      url: "about:blank",
    });
    const ms = this.opts.frameMs?.[new URL(src).origin] ?? 0;
    if (ms) await Bun.sleep(ms);
    if (this.tabs.get(context)?.url !== url) return;
    f.marked = (await this.request(frame, src, intercept)).includes("selenium-flow-spare");
    this.log.push(`parsed ${frame}`);
    for (const event of ["browsingContext.domContentLoaded", "browsingContext.load"])
      this.emit(event, frame, { context: frame, navigation: "n", timestamp: 0, url: src });
  }

  /** A blocked request, as the intercept's listeners hear it; the body they answer with ("" if none). */
  private async request(context: string, url: string, intercept: string): Promise<string> {
    const before = this.responses.length;
    const event = {
      context,
      navigation: "n",
      redirectCount: 0,
      request: { request: `request-${++this.n}`, url, method: "GET", headers: [] },
      timestamp: 0,
      isBlocked: true,
      intercepts: [intercept],
    };
    this.emit("network.beforeRequestSent", context, event);
    // The browser waits for the answer (a handler may hold it back a moment); a refused one never comes.
    const answer = () => this.responses.slice(before).find((r) => r.request === event.request.request);
    for (let i = 0; i < 50 && !answer(); i++) await Bun.sleep(i === 0 ? 0 : 1);
    const body = (answer()?.body ?? {}) as { value?: unknown };
    return typeof body.value === "string" ? body.value : "";
  }

  // A new document: its preload scripts run before anything else, then the browser tells the load.
  private arrived(context: string, url: string, load = true): { navigation: string; url: string } {
    const tab = this.tabs.get(context);
    if (!tab) return { navigation: "n", url };
    const origin = new URL(url).origin;
    for (const p of [...this.preloads.values()]) {
      if (p.contexts && !p.contexts.includes(context)) continue;
      this.log.push(`preloaded ${context} ${p.sandbox ?? "page"}${p.contexts ? "" : " everywhere"}`);
      try {
        callOn(p.declaration, [], this.pageOf(context, tab, origin));
      } catch {
        // a preload that throws stops nothing
      }
    }
    const subscribed = [...this.subscriptions.values()].some(
      (ctxs) => ctxs.length === 0 || ctxs.includes(context),
    );
    if (subscribed) {
      const quiet = url === "about:blank" && this.opts.quietBlank;
      for (const event of [
        "browsingContext.navigationCommitted",
        ...(quiet ? [] : ["browsingContext.domContentLoaded"]),
        ...(quiet || !load ? [] : ["browsingContext.load"]),
      ]) {
        const info = { context, navigation: "n", timestamp: 0, url };
        this.emit(event, context, info);
      }
    }
    return { navigation: "n", url };
  }

  private pageOf(context: string, tab: Tab, origin: string): FakePage {
    let path = "/";
    try {
      path = new URL(tab.url).pathname;
    } catch {
      // about:blank
    }
    // A frame of another site's page (as the options say) has storage of its own, not the site's.
    const parent = tab.parent ? this.tabs.get(tab.parent) : null;
    const top = parent ? new URL(parent.url).origin : origin;
    const partitioned = !!parent && top !== origin && !!this.opts.partitioned?.includes(origin);
    return {
      go: (url) => {
        this.log.push(`replace ${context} ${url}`);
        setTimeout(() => {
          // A navigation the browser refuses: its failure is an event, as a page's own move gets no answer.
          if (this.opts.fail?.("browsingContext.navigate", { context, url })) {
            const info = { context, navigation: "n", timestamp: 0, url };
            this.emit("browsingContext.navigationFailed", context, info);
            return;
          }
          this.navigate(context, url).catch(() => undefined);
        }, 0);
      },
      cores: this.opts.cores ?? 0,
      origin,
      marked: tab.marked,
      local: this.localOf(partitioned ? `${origin} under ${top}` : origin),
      session: this.sessionOf(context, origin),
      title: this.titles.get(tab.url) ?? "",
      path,
      partitioned,
    };
  }

  // The sandbox calls the server makes on these pages, answered in the page library's wire shape.
  private async callFunction(context: string, declaration: string, args: unknown[]): Promise<unknown> {
    const tab = this.tabs.get(context);
    if (!tab) throw new Error("no such frame");
    const origin = tab.url.startsWith("http") ? new URL(tab.url).origin : "";
    let value: unknown = null;
    // The server's own small scripts (not the page library) run for real against the fake page.
    if (!declaration.includes("__sfLib")) {
      try {
        const got = await callOn(declaration, args, this.pageOf(context, tab, origin || "null"));
        return { type: "success", result: { type: typeof got, value: got }, realm: "r" };
      } catch (err) {
        return {
          type: "exception",
          exceptionDetails: {
            text: err instanceof Error ? err.message : String(err),
            lineNumber: 0,
            columnNumber: 0,
          },
          realm: "r",
        };
      }
    }
    // A library call names its function first (src/grid/page-call.ts).
    const fn = String(args[0]);
    if (fn === "storagesNow") {
      // The save's read of the page (the library's storagesNow).
      value = {
        ...(origin
          ? { local: this.localOf(origin).items(), session: this.sessionOf(context, origin).items() }
          : { local: {}, session: {} }),
        idb: { dbs: [], skipped: [] },
        title: this.titles.get(tab.url) ?? "",
        cores: this.opts.cores ?? 0,
      };
    } else if (fn === "docTitle" || fn === "afterGesture") {
      value = this.titles.get(tab.url) ?? "";
    } else {
      throw new Error(`the fake cannot run: ${fn}`);
    }
    return {
      type: "success",
      result: { type: "array", value: [{ type: "string", value: JSON.stringify(value) }] },
      realm: "r",
    };
  }

  private evaluate(context: string, expression: string): unknown {
    const tab = this.tabs.get(context);
    if (!tab) throw new Error("no such frame");
    const origin = tab.url.startsWith("http") ? new URL(tab.url).origin : "null";
    try {
      const value = evaluateOn(expression, {
        origin,
        marked: tab.marked,
        local: this.localOf(origin),
        session: this.sessionOf(context, origin),
      });
      return { type: "success", result: { type: typeof value, value }, realm: "r" };
    } catch (err) {
      return {
        type: "exception",
        exceptionDetails: {
          text: err instanceof Error ? err.message : String(err),
          lineNumber: 0,
          columnNumber: 0,
        },
        realm: "r",
      };
    }
  }
}

export function bidiCookie(
  name: string,
  domain: string,
  over: Partial<Omit<Network.Cookie, "name" | "domain">> = {},
): Network.Cookie {
  return {
    name,
    value: { type: "string", value: `v-${name}` },
    domain,
    path: "/",
    size: 1,
    httpOnly: false,
    secure: true,
    sameSite: "lax",
    ...over,
  };
}
