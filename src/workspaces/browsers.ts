// The browsers this server keeps: each as one call takes it (its page port made on first use and
// given back at the end), over the one BiDi connection kept per live browser.
import { error as wd } from "selenium-webdriver";
import { type LiveBrowser, RefFloors } from "../actions/action.ts";
import { badInput } from "../errors.ts";
import { SANDBOX } from "../grid/bidi.ts";
import type { Emulation } from "../grid/emulation.ts";
import type { HeldConnection } from "../grid/held.ts";
import { IDLE_MS } from "../grid/held.ts";
import { HeldConnections } from "../grid/held-pool.ts";
import { HINT_PRELOAD } from "../grid/hint-relay.ts";
import type { NetRules } from "../grid/net-rules.ts";
import { Page } from "../grid/page.ts";
import type { Located } from "../grid/page-found.ts";
import type { Where } from "../grid/page-port.ts";
import { LIBRARY_PRELOAD } from "../grid/page-port.ts";
import { answers } from "../grid/page-stuck.ts";
import { NavPolicy, type PolicyLayer } from "../grid/policy.ts";
import { routesOf } from "../grid/routes.ts";
import type { Grid } from "../grid/webdriver.ts";
import { type BrowserSettings, focusFor, type WorkspaceRecord } from "../store/record.ts";
import type { ProxySpec } from "./proxy.ts";

/** A browser as one call takes it: its page port is made on first use and given back at the end. */
export interface CallBrowser extends LiveBrowser {
  /** Where the page is now (null: the call never looked). */
  where(): Where | null;
  /** The call's selectors that named their element by ref, with that element's locator. */
  located(): Located[];
  release(): void;
}

/** Why the record's browser cannot serve a call as it is: it names none, its channel died, its page stopped answering. */
export type Unready = "none" | "dead" | "wedged";

/** Classic WebDriver's default page load timeout, which the browser keeps when none is set. */
const PAGE_LOAD_MS = 300_000;
const SCRIPT_MS = 30_000;
/** How long a browser found stuck has to answer before the next call replaces it. */
const WEDGED_MS = 3_000;

/**
 * The browsers a server holds, over one BiDi connection per live browser (its library preloaded in
 * every new document; console and network entries kept per browser). Made once, in the composition root: the manager and the timeline's live
 * view both reach browsers through it.
 */
export function heldBrowsers(
  grid: Grid,
  opts: {
    schemes?: string[];
    logs?: number;
    policy?: PolicyLayer;
    proxies?: (name: string) => ProxySpec;
    hints?: boolean;
  } = {},
): Browsers {
  const library = { functionDeclaration: LIBRARY_PRELOAD, sandbox: SANDBOX };
  const connections = new HeldConnections(
    (id) => grid.bidi(id),
    IDLE_MS,
    opts.hints === false ? [library] : [library, HINT_PRELOAD],
    opts.logs,
  );
  return new Browsers(grid, connections, opts.schemes, opts.policy, opts.proxies);
}

/** What a browser opened with `settings` emulates (its `emulate`, and `offline`); null: nothing. */
export function emulationOf(settings: BrowserSettings): Emulation | null {
  const e: Emulation = { ...(settings.emulate ?? {}), ...(settings.offline ? { offline: true } : {}) };
  return Object.keys(e).length ? e : null;
}

export class Browsers {
  /** read_page's ref floors for every browser this server holds. */
  private readonly refFloors = new RefFloors();

  constructor(
    private readonly grid: Grid,
    /** One BiDi connection per live browser this server has touched. */
    readonly connections: HeldConnections,
    /** The URL schemes a page may be loaded from (navigate.allow_schemes; the default when unset). */
    readonly schemes?: string[],
    /** The server's navigation policy (navigate.allowed_hosts, blocked_hosts, private_addresses). */
    private readonly policy: PolicyLayer = {},
    /** The proxy a secret names (a 400 when it names none). */
    private readonly proxies: (name: string) => ProxySpec = (name) => {
      throw badInput(`proxy: there is no secret named ${name}`, "proxy");
    },
  ) {}

  /** The proxy a browser opened with `settings` goes through, or null. */
  proxyOf(settings: BrowserSettings): ProxySpec | null {
    return settings.proxy ? this.proxies(settings.proxy) : null;
  }

  /** The network rules of a browser opened with `settings`: its policy, its proxy's sign-in, its routes; null when none. */
  rulesOf(settings: BrowserSettings): NetRules | null {
    const policy = this.policyOf(settings);
    const proxy = this.proxyOf(settings);
    const auth =
      proxy?.username !== undefined ? { username: proxy.username, password: proxy.password ?? "" } : null;
    const routes = routesOf(settings.routes);
    if (!policy && !auth && !routes) return null;
    return {
      policy,
      auth,
      routes,
      key: JSON.stringify([policy?.key ?? null, auth ? settings.proxy : null, settings.routes ?? null]),
    };
  }

  /** The navigation policy a browser opened with `settings` follows: the server's, narrowed by its workspace's. */
  policyOf(settings: BrowserSettings): NavPolicy | null {
    const p = settings.policy;
    return NavPolicy.of(
      this.policy,
      p ? { allow: p.allow, block: p.block, private: p.private === true } : null,
    );
  }

  /** The browser's connection, its network rules and emulation in place before it is used. */
  private async ruled(id: string, settings: BrowserSettings): Promise<HeldConnection> {
    await this.connections.configure(id, this.rulesOf(settings));
    const conn = await this.connection(id);
    await this.connections.emulate(id, conn, emulationOf(settings));
    return conn;
  }

  /**
   * The browser's held connection. One that cannot be had may mean the Grid reaped the browser:
   * then it says so the way WebDriver does, and the call reopens it.
   */
  async connection(id: string): Promise<HeldConnection> {
    try {
      return await this.connections.get(id);
    } catch (err) {
      // A Grid that does not answer is named as such (its own 503), rather than the socket.
      if (!(await this.grid.alive(id))) {
        this.connections.drop(id);
        throw new wd.NoSuchSessionError("the browser is gone");
      }
      throw err;
    }
  }

  /**
   * The record's browser ready for the call that took the lease: its held connection asked once, and
   * when it is open with nothing to send, the call's `Page` made and the connection in use now (the
   * handler's `page()` a lookup). Otherwise why the lifecycle must give the call one: "none" (the
   * record names none), "dead" (its channel died), "wedged" (its page stopped answering).
   */
  async forCall(record: WorkspaceRecord | null): Promise<CallBrowser | Unready> {
    const id = record?.session_id;
    if (!record || !id) return "none";
    const conn = this.connections.peek(id);
    // A connection open is a channel alive: only without one may it have died.
    if (!conn && this.connections.dead(id)) return "dead";
    if (conn?.stuck && (await this.wedged(conn, record, id))) return "wedged";
    // A proxy's sign-in is a secret, looked up as the page is made: that one waits for `page()`.
    const ready =
      conn && !record.settings.proxy
        ? this.connections.ready(id, this.rulesOf(record.settings), emulationOf(record.settings))
        : undefined;
    return this.taken(id, record.settings, record, ready);
  }

  /**
   * Whether the browser, found stuck (page-stuck.ts), is wedged: the agent's tab still takes no trivial
   * script within WEDGED_MS, with no dialog open that would explain it (a dialog is answered, not
   * replaced). Only a browser this server saw stuck is asked.
   */
  private async wedged(conn: HeldConnection, record: WorkspaceRecord, id: string): Promise<boolean> {
    if (conn.prompts.size > 0) return false;
    const tab =
      focusFor(record, id)?.tab ||
      (
        await conn.socket
          .send("browsingContext.getTree", { maxDepth: 0 }, { timeoutMs: WEDGED_MS })
          .catch(() => null)
      )?.contexts[0]?.context;
    if (!tab) return false;
    if (!(await answers(conn.socket, tab, WEDGED_MS))) return conn.prompts.size === 0;
    conn.stuck = false;
    return false;
  }

  /** The browser as a call takes it: its `Page` made on first use. */
  live(id: string, settings: BrowserSettings, record: WorkspaceRecord | null = null): CallBrowser {
    return this.taken(id, settings, record, undefined);
  }

  /** `ready`: its connection, open with nothing to send: the `Page` is made on it now when its tab is known. */
  private taken(
    id: string,
    settings: BrowserSettings,
    record: WorkspaceRecord | null,
    ready: HeldConnection | undefined,
  ): CallBrowser {
    const driver = this.grid.attach(id);
    let page: Promise<Page> | null = null;
    let made: Page | null = null;
    let release: (() => void) | null = null;
    const known = focusFor(record, id);
    const pageLoadMs =
      typeof settings.page_load_timeout === "number" ? settings.page_load_timeout * 1000 : PAGE_LOAD_MS;
    const scriptMs = typeof settings.script_timeout === "number" ? settings.script_timeout * 1000 : SCRIPT_MS;
    const policy = this.policyOf(settings);
    const make = (conn: HeldConnection): Page => {
      release?.();
      release = conn.use();
      return new Page(conn, known ?? { tab: "", frame: null }, {
        pageLoadMs,
        scriptMs,
        ...(this.schemes ? { schemes: this.schemes } : {}),
        ...(policy ? { policy } : {}),
        gone: async () => !(await this.grid.alive(id)),
      });
    };
    const open = async (): Promise<Page> => {
      const page = make(await this.ruled(id, settings));
      if (!known) {
        // The browser's first tab, until the agent picks another.
        const first = (await page.tabs())[0];
        if (!first) throw new wd.NoSuchWindowError("the browser has no tab");
        page.where.tab = first.context;
      }
      made = page;
      return page;
    };
    // Made now, it counts as the call's page (where it is, what it located) once the call asks for it.
    let early = ready && known ? make(ready) : null;
    return {
      id,
      driver,
      settings,
      bidi: async () => (await this.ruled(id, settings)).socket,
      refFloors: this.refFloors,
      page: () => {
        if (early) {
          made = early;
          page = Promise.resolve(early);
          early = null;
        }
        page ??= open().catch((err) => {
          page = null;
          throw err;
        });
        return page;
      },
      where: () => (made ? { ...made.where } : null),
      located: () => (made ? [...made.located] : []),
      release: () => {
        release?.();
        release = null;
      },
    };
  }
}
