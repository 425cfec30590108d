// A small typed WebDriver BiDi client on Bun's own WebSocket, to the Grid's proxy
// (`/session/<id>/se/bidi`). The server holds one per live browser (see held.ts): all page work
// goes over it; classic WebDriver keeps only the session's lifecycle.

import { FlowError, messageOf, unavailable } from "../errors.ts";
import { log } from "../log.ts";

// --- the BiDi types this project uses (W3C WebDriver BiDi, trimmed to the fields we read or send)

export type Empty = Record<string, never>;
export type StringValue = { type: "string"; value: string };
export type BytesValue = StringValue | { type: "base64"; value: string };
export type SameSite = "strict" | "lax" | "none" | "default";
export interface Header {
  name: string;
  value: BytesValue;
}
export interface Cookie {
  name: string;
  value: BytesValue;
  domain: string;
  path: string;
  size: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: SameSite;
  expiry?: number;
}
export interface PartialCookie {
  name: string;
  value: BytesValue;
  domain: string;
  path?: string;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: SameSite;
  expiry?: number;
}
export type CookieFilter = Partial<Omit<Cookie, "value">> & { value?: BytesValue };
export type PartitionDescriptor =
  | { type: "context"; context: string }
  | { type: "storageKey"; userContext?: string; sourceOrigin?: string };
export interface PartitionKey {
  userContext?: string;
  sourceOrigin?: string;
}
export type UrlPattern =
  | { type: "string"; pattern: string }
  | {
      type: "pattern";
      protocol?: string;
      hostname?: string;
      port?: string;
      pathname?: string;
      search?: string;
    };
export type InterceptPhase = "beforeRequestSent" | "responseStarted" | "authRequired";
/** The sandbox realm the server's own scripts run in: its own globals, the page's DOM. */
export const SANDBOX = "selenium-flow";
export type Target = { context: string; sandbox?: string } | { realm: string };
/** A node (or window) as BiDi hands it over; `sharedId` names it in any realm of its document. */
export interface SharedReference {
  sharedId: string;
}
export interface SerializationOptions {
  maxDomDepth?: number | null;
  maxObjectDepth?: number | null;
  includeShadowTree?: "none" | "open" | "all";
}
export type Origin = "viewport" | "pointer" | { type: "element"; element: SharedReference };
export type PointerAction =
  | { type: "pause"; duration?: number }
  | { type: "pointerMove"; x: number; y: number; duration?: number; origin?: Origin }
  | { type: "pointerDown"; button: number }
  | { type: "pointerUp"; button: number };
export type KeyAction =
  | { type: "pause"; duration?: number }
  | { type: "keyDown"; value: string }
  | { type: "keyUp"; value: string };
export type WheelAction =
  | { type: "pause"; duration?: number }
  | { type: "scroll"; x: number; y: number; deltaX: number; deltaY: number; origin?: Origin };
export type SourceActions =
  | {
      type: "pointer";
      id: string;
      parameters?: { pointerType: "mouse" | "pen" | "touch" };
      actions: PointerAction[];
    }
  | { type: "key"; id: string; actions: KeyAction[] }
  | { type: "wheel"; id: string; actions: WheelAction[] }
  | { type: "none"; id: string; actions: { type: "pause"; duration?: number }[] };
export interface UserPrompt {
  context: string;
  type: "alert" | "confirm" | "prompt" | "beforeunload";
  message: string;
  defaultValue?: string;
}
/** A remote value as BiDi serialises it; `value` holds primitives, arrays and objects in their wire shape. */
export interface RemoteValue {
  type: string;
  value?: unknown;
  handle?: string;
}
export type LocalValue = RemoteValue | { type: "undefined" | "null" } | { handle: string } | SharedReference;
export type EvaluateResult =
  | { type: "success"; result: RemoteValue; realm: string }
  | {
      type: "exception";
      exceptionDetails: { text: string; lineNumber: number; columnNumber: number };
      realm: string;
    };
export interface BrowsingContextInfo {
  context: string;
  url: string;
  parent?: string | null;
  children: BrowsingContextInfo[] | null;
  userContext?: string;
}
export type ReadinessState = "none" | "interactive" | "complete";

export interface Commands {
  "session.subscribe": {
    params: { events: string[]; contexts?: string[] };
    result: { subscription: string };
  };
  "session.unsubscribe": { params: { subscriptions: string[] }; result: Empty };
  "browsingContext.create": {
    params: { type: "tab" | "window"; background?: boolean; referenceContext?: string; userContext?: string };
    result: { context: string };
  };
  "browsingContext.navigate": {
    params: { context: string; url: string; wait?: ReadinessState };
    result: { navigation: string | null; url: string };
  };
  "browsingContext.close": { params: { context: string; promptUnload?: boolean }; result: Empty };
  "browsingContext.getTree": {
    params: { maxDepth?: number; root?: string };
    result: { contexts: BrowsingContextInfo[] };
  };
  "browsingContext.activate": { params: { context: string }; result: Empty };
  "browsingContext.traverseHistory": { params: { context: string; delta: number }; result: Empty };
  "browsingContext.reload": {
    params: { context: string; ignoreCache?: boolean; wait?: ReadinessState };
    result: { navigation: string | null; url: string };
  };
  "browsingContext.handleUserPrompt": {
    params: { context: string; accept?: boolean; userText?: string };
    result: Empty;
  };
  "browsingContext.captureScreenshot": {
    params: {
      context: string;
      origin?: "viewport" | "document";
      format?: { type: string; quality?: number };
      clip?:
        | { type: "element"; element: SharedReference }
        | { type: "box"; x: number; y: number; width: number; height: number };
    };
    result: { data: string };
  };
  "browsingContext.print": {
    params: {
      context: string;
      background?: boolean;
      orientation?: "portrait" | "landscape";
      scale?: number;
      pageRanges?: (string | number)[];
    };
    result: { data: string };
  };
  "input.performActions": { params: { context: string; actions: SourceActions[] }; result: Empty };
  "input.releaseActions": { params: { context: string }; result: Empty };
  "input.setFiles": { params: { context: string; element: SharedReference; files: string[] }; result: Empty };
  "network.addIntercept": {
    params: { phases: InterceptPhase[]; contexts?: string[]; urlPatterns?: UrlPattern[] };
    result: { intercept: string };
  };
  "network.removeIntercept": { params: { intercept: string }; result: Empty };
  "network.provideResponse": {
    params: {
      request: string;
      statusCode?: number;
      reasonPhrase?: string;
      headers?: Header[];
      body?: BytesValue;
    };
    result: Empty;
  };
  "network.continueRequest": {
    params: { request: string; url?: string; method?: string; headers?: Header[]; body?: BytesValue };
    result: Empty;
  };
  "network.failRequest": { params: { request: string }; result: Empty };
  "script.evaluate": {
    params: { expression: string; target: Target; awaitPromise: boolean; resultOwnership?: "root" | "none" };
    result: EvaluateResult;
  };
  "script.callFunction": {
    params: {
      functionDeclaration: string;
      target: Target;
      awaitPromise: boolean;
      arguments?: LocalValue[];
      this?: LocalValue;
      resultOwnership?: "root" | "none";
      serializationOptions?: SerializationOptions;
    };
    result: EvaluateResult;
  };
  "script.addPreloadScript": {
    params: { functionDeclaration: string; sandbox?: string; contexts?: string[] };
    result: { script: string };
  };
  "script.removePreloadScript": { params: { script: string }; result: Empty };
  "storage.getCookies": {
    params: { filter?: CookieFilter; partition?: PartitionDescriptor };
    result: { cookies: Cookie[]; partitionKey: PartitionKey };
  };
  "storage.setCookie": {
    params: { cookie: PartialCookie; partition?: PartitionDescriptor };
    result: { partitionKey: PartitionKey };
  };
  "storage.deleteCookies": {
    params: { filter?: CookieFilter; partition?: PartitionDescriptor };
    result: { partitionKey: PartitionKey };
  };
}
export type Method = keyof Commands;

export interface NavigationInfo {
  context: string;
  navigation: string | null;
  timestamp: number;
  url: string;
}
export interface RequestData {
  request: string;
  url: string;
  method: string;
  headers: Header[];
}
export interface NetworkEvent {
  context: string | null;
  navigation: string | null;
  redirectCount: number;
  request: RequestData;
  timestamp: number;
  isBlocked: boolean;
  intercepts?: string[];
}
export interface ResponseData {
  url: string;
  status: number;
  statusText: string;
  mimeType: string;
  headers: Header[];
}
export interface Events {
  "browsingContext.load": NavigationInfo;
  "browsingContext.domContentLoaded": NavigationInfo;
  "browsingContext.navigationStarted": NavigationInfo;
  "browsingContext.contextCreated": BrowsingContextInfo;
  "browsingContext.contextDestroyed": BrowsingContextInfo;
  "browsingContext.navigationAborted": NavigationInfo;
  "browsingContext.navigationFailed": NavigationInfo;
  "browsingContext.navigationCommitted": NavigationInfo;
  "browsingContext.fragmentNavigated": NavigationInfo;
  "browsingContext.downloadWillBegin": NavigationInfo;
  "browsingContext.userPromptOpened": UserPrompt;
  "browsingContext.userPromptClosed": { context: string; accepted: boolean; type: string; userText?: string };
  "network.beforeRequestSent": NetworkEvent;
  "network.responseStarted": NetworkEvent & { response: ResponseData };
  "network.responseCompleted": NetworkEvent & { response: ResponseData };
  "network.fetchError": NetworkEvent & { errorText: string };
  "log.entryAdded": {
    level: string;
    text: string | null;
    type: string;
    source: { realm: string; context?: string };
  };
}
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
export class BidiTimeout extends FlowError {
  constructor(
    readonly method: string,
    readonly ms: number,
  ) {
    super("unavailable", `${DOWN} did not answer ${method} within ${Math.round(ms / 100) / 10} s`);
    this.name = "BidiTimeout";
  }
}

// lib.dom's WebSocket type hides the options argument Bun's constructor takes (headers).
const BunWebSocket = WebSocket as unknown as new (url: string, options?: Bun.WebSocketOptions) => WebSocket;

interface Pending {
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

  private constructor(
    private readonly ws: WebSocket,
    private readonly commandTimeoutMs: number,
  ) {
    ws.addEventListener("message", (ev) => this.receive(ev.data));
    ws.addEventListener("close", () => this.fail(`${DOWN} closed`));
  }

  /** Opens the socket; `headers` carries the Grid's Basic auth when its URL has credentials. */
  static connect(
    url: string,
    opts: { commandTimeoutMs?: number; headers?: Record<string, string> } = {},
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
        resolve(new BidiSocket(ws, timeoutMs));
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

  /** Calls `handler` once the socket is closed, by either side. */
  onClose(handler: () => void): void {
    if (this.closedWhy) handler();
    else this.closeHandlers.push(handler);
  }

  /** One command; rejects with `unavailable` on a timeout or a closed socket, `BidiError` on an error reply. */
  send<M extends Method>(
    method: M,
    params: Commands[M]["params"],
    opts: { timeoutMs?: number } = {},
  ): Promise<Commands[M]["result"]> {
    if (this.closedWhy) return Promise.reject(unavailable(this.closedWhy));
    const id = this.nextId++;
    const timeoutMs = opts.timeoutMs ?? this.commandTimeoutMs;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new BidiTimeout(method, timeoutMs));
      }, timeoutMs);
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, timer });
      try {
        this.ws.send(JSON.stringify({ id, method, params }));
      } catch (err) {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(unavailable(`${DOWN} could not send ${method}: ${messageOf(err)}`));
      }
    });
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
    const params = contexts ? { events, contexts } : { events };
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

  private fail(why: string): void {
    if (this.closedWhy) return;
    this.closedWhy = why;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(unavailable(`${why} before it answered ${p.method}`));
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
          out.catch((err) => log.debug(`a ${l.event} handler failed: ${messageOf(err)}`));
      } catch (err) {
        log.debug(`a ${l.event} handler failed: ${messageOf(err)}`);
      }
    }
  }
}
