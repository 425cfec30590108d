// What a browser's pages reported over its held BiDi connection — console messages, uncaught
// errors and network requests — kept in a bounded ring per browser (setting logs.keep) so the
// `logs` action and capture=true read them. Texts are kept as the browser sent them (an unpaired
// surrogate replaced): whoever hands them out redacts secret values first.
//
// chromedriver chokes on console text with unpaired UTF-16 surrogates ("bad inspector message …
// log.entryAdded"): a few such messages and the whole BiDi channel stops answering, for good. So a
// browser that replaces one whose channel died that way follows no console (QUIET says so in its ring).
import { LRUCache } from "lru-cache";
import type { BidiSocket, EventName } from "./bidi.ts";
import type { Quiet } from "./quiet.ts";

/** Console messages and uncaught errors: the one event a browser's own page can poison (see QUIET). */
export const CONSOLE: EventName = "log.entryAdded";

/** The events the ring is fed by; the held connection subscribes to them with the rest. */
export const LOGGED: EventName[] = [
  CONSOLE,
  "network.beforeRequestSent",
  "network.responseCompleted",
  "network.fetchError",
];

export const DEFAULT_KEEP = 1000;

/** What a browser that follows no console says in its ring. */
export const QUIET =
  "console messages are not followed in this browser: the previous browser's BiDi channel died, as chromedriver does on some console output (text with unpaired UTF-16 surrogates); open_session starts a browser that follows them again";
const MAX_TEXT = 2000;
const MAX_URL = 1000;

export interface ConsoleEntry {
  kind: "console";
  level: string;
  text: string;
  source?: string;
}
export interface NetworkEntry {
  kind: "network";
  method: string;
  url: string;
  status?: number;
  type: string;
  ms?: number;
  size?: number;
  error?: string;
  /** Refused by the navigation policy (error says which host and rule). */
  refused?: true;
}
export type LogEntry = ConsoleEntry | NetworkEntry;

/** An entry as the ring holds it: its place in order and the context (tab or frame) it came from. */
export interface Logged {
  seq: number;
  context: string | null;
  entry: LogEntry;
  /** Network only: when the request was sent (ms, the browser's clock). */
  sent?: number;
  /** Logged while a bound write ran in its context: withheld, with the origin of the write's document. */
  withheld?: string;
}

const cap = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

type Frame = { url?: string; lineNumber?: number; columnNumber?: number };

/** Where a console entry came from: the top frame of its stack, as url:line. */
export function sourceOf(params: { stackTrace?: { callFrames?: Frame[] } }): string | undefined {
  const top = params.stackTrace?.callFrames?.find((f) => f.url);
  if (!top?.url) return undefined;
  return cap(top.lineNumber === undefined ? top.url : `${top.url}:${top.lineNumber + 1}`, MAX_URL);
}

export class EventRing {
  private readonly items: Logged[] = [];
  private next = 1;
  /** Requests still under way, by request id and redirect step. */
  private readonly open: LRUCache<string, Logged>;
  /** Of those, the ones a page's script sent (fetch, XHR): their context and when they were seen. */
  private readonly fetching: LRUCache<string, { context: string | null; at: number }>;

  /** This browser's tag in the cursors handed out: a cursor from another browser names another. */
  readonly epoch = crypto.randomUUID().slice(0, 8);

  constructor(readonly keep = DEFAULT_KEEP) {
    // A lost end event must not grow the map without bound.
    this.open = new LRUCache({ max: Math.max(1, keep) });
    this.fetching = new LRUCache({ max: Math.max(1, keep) });
  }

  private dropFetches(context: string): void {
    const gone = [...this.fetching.entries()].filter(([, f]) => f.context === context);
    for (const [key] of gone) this.fetching.delete(key);
  }

  /**
   * How many requests a page's script sent (fetch, XHR) are still under way from a context `of`
   * takes; with `younger`, only those seen less than that many ms ago (a long poll is old).
   */
  inFlight(of: (context: string) => boolean, younger = Number.POSITIVE_INFINITY): number {
    const now = Date.now();
    let n = 0;
    for (const f of this.fetching.values()) if (f.context && of(f.context) && now - f.at < younger) n++;
    return n;
  }

  /** The seq the next entry gets: entries since a reading of it are the newer ones. */
  get head(): number {
    return this.next;
  }

  /** Entries with seq >= from, oldest first. */
  since(from: number): Logged[] {
    const i = this.items.findIndex((l) => l.seq >= from);
    return i < 0 ? [] : this.items.slice(i);
  }

  /**
   * Follows `socket`'s events (the connection subscribes to LOGGED); an entry that comes in while
   * `quiet` withholds its context is kept withheld (spec §1.17). Returns the unhook.
   */
  feed(socket: BidiSocket, quiet?: Pick<Quiet, "withheldIn">): () => void {
    const push = (l: Omit<Logged, "seq">) => {
      const withheld = quiet?.withheldIn(l.context);
      return this.push(withheld ? { ...l, withheld } : l);
    };
    const offs = [
      socket.on("log.entryAdded", null, (p) => {
        // Taken as it comes: an unpaired UTF-16 surrogate is replaced (U+FFFD), never a failure.
        const text = cap(String(p.text ?? "").toWellFormed(), MAX_TEXT);
        const entry: ConsoleEntry = { kind: "console", level: p.level, text };
        const source = sourceOf(p as Parameters<typeof sourceOf>[0]);
        if (source) entry.source = source;
        push({ context: p.source.context ?? null, entry });
      }),
      socket.on("network.beforeRequestSent", null, (p) => {
        const r = p.request as typeof p.request & { destination?: string; initiatorType?: string | null };
        const entry: NetworkEntry = {
          kind: "network",
          method: r.method,
          url: cap(r.url, MAX_URL),
          type: r.destination || r.initiatorType || "other",
        };
        const l = push({ context: p.context, entry, sent: p.timestamp });
        this.open.set(`${r.request}/${p.redirectCount}`, l);
        // No markup asked for it (its destination is empty): a script's fetch or XHR.
        const scripted =
          r.destination === "" ||
          (r.destination === undefined && ["fetch", "xmlhttprequest"].includes(r.initiatorType ?? ""));
        // A redirect goes on under the same request: its last step is over.
        if (p.redirectCount > 0) this.fetching.delete(`${r.request}/${p.redirectCount - 1}`);
        if (scripted)
          this.fetching.set(`${r.request}/${p.redirectCount}`, { context: p.context, at: Date.now() });
      }),
      socket.on("network.responseCompleted", null, (p) => {
        const l = this.end(p);
        if (!l) return;
        const res = p.response as typeof p.response & { bytesReceived?: number; content?: { size?: number } };
        const entry = l.entry as NetworkEntry;
        entry.status = res.status;
        const size = res.content?.size || res.bytesReceived;
        if (typeof size === "number") entry.size = size;
      }),
      // A document gone takes its requests with it (the browser may say nothing of them).
      socket.on("browsingContext.navigationCommitted", null, (p) => this.dropFetches(p.context)),
      socket.on("browsingContext.contextDestroyed", null, (p) => this.dropFetches(p.context)),
      socket.on("network.fetchError", null, (p) => {
        const l = this.end(p);
        const entry = l?.entry as NetworkEntry | undefined;
        if (entry && !entry.refused) entry.error = p.errorText;
      }),
    ];
    return () => {
      for (const off of offs) off();
    };
  }

  /** The origin of the bound write's document when `l` was logged by a context while the write ran in it, else null. */
  withheld(l: Logged): string | null {
    return l.withheld ?? null;
  }

  /** A request the navigation policy refused: its entry says why (the browser's own error follows, unsaid). */
  refuse(request: string, redirectCount: number, why: string): void {
    const entry = this.open.get(`${request}/${redirectCount}`)?.entry as NetworkEntry | undefined;
    if (!entry) return;
    entry.error = why;
    entry.refused = true;
  }

  /** The server's own word in the ring (a browser that does not follow its console says so). */
  notice(text: string): void {
    this.push({ context: null, entry: { kind: "console", level: "warn", text, source: "selenium-flow" } });
  }

  private push(l: Omit<Logged, "seq">): Logged {
    const item = { seq: this.next++, ...l };
    this.items.push(item);
    if (this.items.length > this.keep) this.items.splice(0, this.items.length - this.keep);
    return item;
  }

  private end(p: { request: { request: string }; redirectCount: number; timestamp: number }): Logged | null {
    const key = `${p.request.request}/${p.redirectCount}`;
    this.fetching.delete(key);
    const l = this.open.get(key);
    if (!l) return null;
    this.open.delete(key);
    if (l.sent !== undefined) (l.entry as NetworkEntry).ms = Math.max(0, Math.round(p.timestamp - l.sent));
    return l;
  }
}
