// A small typed WebDriver BiDi client on Bun's own WebSocket, to the Grid's proxy
// (`/session/<id>/se/bidi`). The server holds one per live browser (see held.ts): all page work
// goes over it; classic WebDriver keeps only the session's lifecycle.

import type { EventData, Script, Commands as SpecCommands } from "webdriver-bidi-protocol";
import { AppError, messageOf, unavailable } from "../errors.ts";
import { Log } from "../log.ts";
import { ownCall } from "./well-formed.ts";

/** The sandbox realm the server's own scripts run in: its own globals, the page's DOM. */
export const SANDBOX = "selenium-flow";

/** The commands this client sends: W3C WebDriver BiDi's, as `webdriver-bidi-protocol` generates them. */
export type Method = keyof SpecCommands;
export type Params<M extends Method> = SpecCommands[M]["params"];
export type Result<M extends Method> = SpecCommands[M]["returnType"];
/** A remote value read loosely: the spec's union, seen as its wire shape (`value` for what has one). */
export type WireValue = { type: string; value?: unknown; sharedId?: string; internalId?: string };
/** A remote value's `value`: a primitive's, or an array's or object's in its wire shape; undefined for the rest. */
export function remoteValue(r: Script.RemoteValue): unknown {
  return (r as WireValue).value;
}
/** Each event's parameters, by its name. */
export type Events = { [E in EventData as E["method"]]: E["params"] };
export type EventName = keyof Events;

type Handler<E extends EventName> = (params: Events[E]) => unknown;

/** A BiDi error reply: `error` is the BiDi error code (`no such frame`, `invalid argument`, …). */
export class BidiError extends Error {
  constructor(
    readonly error: string,
    readonly bidiMessage: string,
  ) {
    super(bidiMessage ? `${error}: ${bidiMessage}` : error);
    this.name = "BidiError";
  }
}

const DOWN = "the browser's BiDi channel";

/** A command past its deadline (a 503: the browser did not answer in time). */
export class BidiTimeout extends AppError {
  constructor(
    readonly method: string,
    readonly ms: number,
  ) {
    super("unavailable", `${DOWN} did not answer ${method} within ${Math.round(ms / 100) / 10} s`);
    this.name = "BidiTimeout";
  }
}

export const DEAD =
  "the browser's BiDi channel stopped answering (even a trivial command): the browser cannot be driven any more";

/** The channel is dead: it stopped answering every command, a trivial probe too (a 503). */
export class BidiDead extends AppError {
  constructor() {
    super("unavailable", DEAD);
    this.name = "BidiDead";
  }
}

/** A command pending this long with nothing heard from the channel makes it probed. */
const QUIET_MS = 2_000;
/** How long the probe (a trivial command the browser answers even when a page is stuck) may take. */
const PROBE_MS = 3_000;

/** The watchdog's timings (ms); tests shorten them. */
export interface Health {
  quietMs: number;
  probeMs: number;
  tickMs: number;
}
const HEALTH: Health = { quietMs: QUIET_MS, probeMs: PROBE_MS, tickMs: 1_000 };

// lib.dom's WebSocket type hides the options argument Bun's constructor takes (headers).
const BunWebSocket = WebSocket as unknown as new (url: string, options?: Bun.WebSocketOptions) => WebSocket;

/** A command's options: its deadline, and the contexts a dialog opening in ends it for (see end). */
export interface SendOptions {
  timeoutMs?: number;
  endsOn?: readonly string[];
}

interface Pending extends Pick<SendOptions, "endsOn"> {
  method: string;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  timer: ReturnType<typeof setTimeout>;
}

interface Listener {
  event: string;
  context: string | null;
  handler: (params: unknown) => unknown;
}

// An event belongs to the context it names (network, browsingContext) or its source's (log, script).
function contextOf(params: unknown): string | null {
  if (!params || typeof params !== "object") return null;
  const p = params as { context?: unknown; source?: { context?: unknown } };
  if (typeof p.context === "string") return p.context;
  if (typeof p.source?.context === "string") return p.source.context;
  return null;
}

export class BidiSocket {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private listeners: Listener[] = [];
  private closedWhy: string | null = null;
  private readonly closeHandlers: Array<() => void> = [];
  /** When the channel last said anything (an answer, an event). */
  private heard = Date.now();
  private watchdog: ReturnType<typeof setInterval> | null = null;
  private probing: Promise<boolean> | null = null;
  private isDead = false;
  /** What other parts keep per connection (`attached`), living and dying with it. */
  private readonly attachments = new Map<symbol, unknown>();

  /**
   * What a part keeps for this connection under `key` (a symbol of its own), made by `make` on first
   * use: it is the connection's, so a new connection (a restart, a drop) starts with none.
   */
  attached<T>(key: symbol, make: () => T): T {
    if (!this.attachments.has(key)) this.attachments.set(key, make());
    return this.attachments.get(key) as T;
  }

  private constructor(
    private readonly ws: WebSocket,
    private readonly commandTimeoutMs: number,
    private readonly health: Health,
    /** The server's log (also what a spare tab on this connection says). */
    readonly logger: Pick<Log, "debug" | "warn">,
  ) {
    ws.addEventListener("message", (ev) => this.receive(ev.data));
    ws.addEventListener("close", () => this.fail(`${DOWN} closed`));
  }

  /** Opens the socket; `headers` carries the Grid's Basic auth when its URL has credentials. */
  static connect(
    url: string,
    opts: { commandTimeoutMs?: number; headers?: Record<string, string>; health?: Health; log?: Log } = {},
  ): Promise<BidiSocket> {
    const timeoutMs = opts.commandTimeoutMs ?? 5000;
    return new Promise((resolve, reject) => {
      let ws: WebSocket;
      try {
        ws = new BunWebSocket(url, { headers: opts.headers });
      } catch (err) {
        reject(unavailable(`${DOWN} could not be opened: ${messageOf(err)}`));
        return;
      }
      const timer = setTimeout(() => {
        ws.close();
        reject(unavailable(`${DOWN} did not open within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      const onOpen = () => {
        clearTimeout(timer);
        ws.removeEventListener("close", onClose);
        resolve(new BidiSocket(ws, timeoutMs, opts.health ?? HEALTH, opts.log ?? new Log()));
      };
      const onClose = (ev: CloseEvent) => {
        clearTimeout(timer);
        ws.removeEventListener("open", onOpen);
        const why =
          ev.reason || (ev.code === 1006 ? "the connection was refused or dropped" : `code ${ev.code}`);
        reject(unavailable(`${DOWN} could not be opened: ${why}`));
      };
      ws.addEventListener("open", onOpen, { once: true });
      ws.addEventListener("close", onClose, { once: true });
    });
  }

  get closed(): boolean {
    return this.closedWhy !== null;
  }

  /** Whether the channel was found dead (it stopped answering a trivial probe): never opened again. */
  get dead(): boolean {
    return this.isDead;
  }

  /**
   * Whether the channel still answers: a trivial command (the context tree's roots), which the
   * browser answers even while a page is busy or a dialog holds it. One that does not answer within
   * `ms` finds the channel dead: it is closed, and every command waiting fails as BidiDead.
   */
  probe(ms = this.health.probeMs): Promise<boolean> {
    if (this.closedWhy) return Promise.resolve(false);
    this.probing ??= this.send("browsingContext.getTree", { maxDepth: 0 }, { timeoutMs: ms })
      .then(
        () => true,
        (err: unknown) => {
          if (err instanceof BidiTimeout) {
            this.die();
            return false;
          }
          // An error reply still answers; a closed socket does not.
          return !this.closedWhy;
        },
      )
      .finally(() => {
        this.probing = null;
      });
    return this.probing;
  }

  /** Calls `handler` once the socket is closed, by either side. */
  onClose(handler: () => void): void {
    if (this.closedWhy) handler();
    else this.closeHandlers.push(handler);
  }

  /** One command; rejects with `unavailable` on a timeout or a closed socket, `BidiError` on an error reply. */
  send<M extends Method>(method: M, params: Params<M>, opts: SendOptions = {}): Promise<Result<M>> {
    if (this.closedWhy) return Promise.reject(this.isDead ? new BidiDead() : unavailable(this.closedWhy));
    if (method === "network.removeIntercept")
      this.intercepts.delete((params as { intercept: string }).intercept);
    if (method === "network.addIntercept") {
      const adding = this.sendNow(method, params, opts);
      this.adding++;
      void adding
        .then((r) => this.intercepts.add((r as { intercept: string }).intercept))
        .catch(() => undefined)
        .finally(() => this.adding--);
      return adding;
    }
    return this.sendNow(method, params, opts);
  }

  /** Intercepts this connection added and has not removed: a request blocked by none of them is another's. */
  readonly intercepts = new Set<string>();
  private adding = 0;

  /** Whether an intercept is being added (its id is not known yet). */
  get addingIntercept(): boolean {
    return this.adding > 0;
  }

  private sendNow<M extends Method>(method: M, params: Params<M>, opts: SendOptions): Promise<Result<M>> {
    const id = this.nextId++;
    const timeoutMs = opts.timeoutMs ?? this.commandTimeoutMs;
    // Quiet is counted from the first command waiting, not from the last word before an idle time.
    if (this.pending.size === 0) this.heard = Date.now();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new BidiTimeout(method, timeoutMs));
      }, timeoutMs);
      const endsOn = opts.endsOn;
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, timer, endsOn });
      this.watch();
      try {
        this.ws.send(JSON.stringify({ id, method, params: ownCall(method, params) }));
      } catch (err) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(unavailable(`${DOWN} could not send ${method}: ${messageOf(err)}`));
      }
    });
  }

  /** Ends with `why` each command waiting whose `endsOn` holds one of `contexts` (a dialog opened there: held.ts). */
  end(contexts: readonly string[], why: unknown): void {
    for (const [id, p] of this.pending) {
      if (!p.endsOn?.some((c) => contexts.includes(c))) continue;
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.reject(why);
    }
  }

  /** Calls `handler` for `event` in `context` (null: every context). Returns the way to stop. */
  on<E extends EventName>(event: E, context: string | null, handler: Handler<E>): () => void;
  on(event: string, context: string | null, handler: (params: unknown) => unknown): () => void;
  on(event: string, context: string | null, handler: (params: never) => unknown): () => void {
    const listener: Listener = { event, context, handler: handler as (params: unknown) => unknown };
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /** Subscribes the session to `events` (for `contexts` only, when given); returns the subscription id. */
  async subscribe(events: EventName[] | string[], contexts?: string[]): Promise<string> {
    const all = events as [string, ...string[]];
    const params = contexts ? { events: all, contexts: contexts as [string, ...string[]] } : { events: all };
    return (await this.send("session.subscribe", params)).subscription;
  }

  async unsubscribe(subscription: string): Promise<void> {
    await this.send("session.unsubscribe", { subscriptions: [subscription] });
  }

  /** Closes the socket; never throws. Commands still waiting fail as `unavailable`. */
  close(): void {
    this.fail(`${DOWN} was closed`);
    try {
      this.ws.close();
    } catch {
      // already gone
    }
  }

  /**
   * While commands wait and the channel has been quiet a while, it is probed (a command that does
   * not answer is a health probe, not a reason to wait out its own deadline): a channel that died
   * under a command is found within seconds, however long that command's deadline.
   */
  private watch(): void {
    if (this.watchdog) return;
    this.watchdog = setInterval(() => {
      if (this.pending.size === 0 || this.closedWhy) {
        if (this.watchdog) clearInterval(this.watchdog);
        this.watchdog = null;
        return;
      }
      if (!this.probing && Date.now() - this.heard >= this.health.quietMs) void this.probe();
    }, this.health.tickMs);
    this.watchdog.unref?.();
  }

  private die(): void {
    if (this.closedWhy) return;
    this.isDead = true;
    this.logger.warn(DEAD);
    this.fail(DEAD);
    try {
      this.ws.close();
    } catch {
      // already gone
    }
  }

  private fail(why: string): void {
    if (this.closedWhy) return;
    this.closedWhy = why;
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(this.isDead ? new BidiDead() : unavailable(`${why} before it answered ${p.method}`));
    }
    this.pending.clear();
    this.listeners = [];
    for (const h of this.closeHandlers.splice(0)) {
      try {
        h();
      } catch {
        // a close handler never stops the others
      }
    }
  }

  private receive(data: unknown): void {
    this.heard = Date.now();
    let msg: {
      id?: number | null;
      type?: string;
      result?: unknown;
      error?: string;
      message?: string;
      method?: string;
      params?: unknown;
    };
    try {
      msg = JSON.parse(typeof data === "string" ? data : Buffer.from(data as ArrayBuffer).toString("utf8"));
    } catch {
      return;
    }
    if (typeof msg.id === "number") {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.type === "error")
        p.reject(new BidiError(String(msg.error ?? "unknown error"), String(msg.message ?? "")));
      else p.resolve(msg.result);
      return;
    }
    if (msg.type !== "event" || typeof msg.method !== "string") return;
    const context = contextOf(msg.params);
    for (const l of this.listeners) {
      if (l.event !== msg.method || (l.context !== null && l.context !== context)) continue;
      try {
        const out = l.handler(msg.params);
        if (out instanceof Promise)
          out.catch((err) => this.logger.debug(`a ${l.event} handler failed: ${messageOf(err)}`));
      } catch (err) {
        this.logger.debug(`a ${l.event} handler failed: ${messageOf(err)}`);
      }
    }
  }
}
