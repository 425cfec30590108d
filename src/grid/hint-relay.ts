// The outline's hints on their way from the page's own world to the sandbox (spec §1.6). The recorder
// (in-page/page-world.ts, a preload script in the page's world) reports elements through a BiDi
// channel as `script.message` events; the relay hands their node references to the sandbox of the
// same document (in-page/standalone.ts takeHints), a chunk at a time, in the background, a moment
// after they came (HOLD_MS): a read in that moment takes its document's along in its own call
// (`claim`) rather than wait for the relay's. A hint may make an element appear in the outline and
// nothing the server decides depends on one: a chunk that fails (its document went, a node with it)
// is dropped, and nothing waits on the relay for long.

import type { Script } from "webdriver-bidi-protocol";
import { recordHints } from "../in-page/page-world.ts";
import { takeHints } from "../in-page/standalone.ts";
import { type BidiSocket, SANDBOX, type WireValue } from "./bidi.ts";
import { callScript } from "./page-call.ts";

export const HINT_CHANNEL = "selenium-flow-hints";

/** The recorder, in the page's own world of every new document, reporting on HINT_CHANNEL. */
export const HINT_PRELOAD: Script.AddPreloadScriptParameters = {
  functionDeclaration: String(recordHints),
  arguments: [
    {
      type: "channel",
      // A closed shadow root comes serialized with its host: BiDi reaches it where no script can.
      value: { channel: HINT_CHANNEL, serializationOptions: { maxDomDepth: 0, includeShadowTree: "all" } },
    },
  ],
};

const TAKE = String(takeHints);
/** A navigation whose loaded page has not said its hints are sent, for at most this long, is waited for. */
const EXPECT_MS = 10_000;
/**
 * Node references per call. The browser resolves each on its own (about 0.5 ms), and a call of the
 * server's own to the same document waits behind the chunk under way: a small chunk keeps that short.
 */
const CHUNK = 25;
/**
 * How long what a document reported waits before the relay hands it over, counted again from the
 * report that says its loaded page's hints are sent. A read right after the load (navigate, then
 * read_page) comes within it and takes them along itself, one call where the relay's would go first
 * (the browser runs the two in turn, about 10 ms at least).
 */
const HOLD_MS = 50;
/** Node references waiting at most; past it, what a page reports is dropped. */
const MAX_WAITING = 50_000;
const TAKE_MS = 5_000;

/** One thing the sandbox is handed: a kind (0 click, 1 drop, 2 closed root), its paths under it (a group's), its nodes. */
export interface Take {
  kind: 0 | 1 | 2;
  paths: string | null;
  /** An element (or a group's ancestor); a closed root's host, then its root. */
  ids: string[];
}

interface Chunk {
  context: string;
  takes: Take[];
  size: number;
  /** When the relay may hand it over (Date.now()); a read's wait makes it now. */
  due: number;
}

/** A document's hints a read takes along in its own call (in-page readPage's `hints`). */
export interface Claim {
  context: string;
  /** takeHints's arguments: what each take is, then the node references in order. */
  takes: string;
  ids: string[];
  /** The read did not go: the relay hands them over after all. */
  giveBack(): void;
}

/** takeHints's first argument for `takes` (their node references follow it, in order). */
function takesJson(takes: Take[]): string {
  return JSON.stringify(takes.map((t) => [t.kind, t.paths]));
}

type Node = WireValue;

/** What a report names: each element or group's ancestor by its shared id, each closed root with its host. */
export function hintTakes(data: Script.RemoteValue): Take[] {
  const out: Take[] = [];
  const lists =
    data.type === "array" && Array.isArray(data.value) ? (data.value as Script.RemoteValue[]) : [];
  for (const [kind, list] of lists.slice(0, 3).entries()) {
    const items = list.type === "array" && Array.isArray(list.value) ? (list.value as Node[]) : [];
    for (const item of items) {
      // A group: [its ancestor, "i.j:tag#id;…"].
      const pair = item.type === "array" && Array.isArray(item.value) ? (item.value as Node[]) : null;
      const node = pair ? pair[0] : item;
      const paths = pair?.[1]?.type === "string" && typeof pair[1].value === "string" ? pair[1].value : null;
      if (node?.type !== "node" || typeof node.sharedId !== "string" || (pair && paths === null)) continue;
      if (kind < 2) out.push({ kind: kind as 0 | 1, paths, ids: [node.sharedId] });
      else if (!pair) {
        const root = (node.value as { shadowRoot?: Node | null } | undefined)?.shadowRoot;
        const mode = (root?.value as { mode?: unknown } | undefined)?.mode;
        if (typeof root?.sharedId === "string" && mode === "closed")
          out.push({ kind: 2, paths: null, ids: [node.sharedId, root.sharedId] });
      }
    }
  }
  return out;
}

/** Whether the page loaded in `data`'s document says its hints are all sent (the report after DOMContentLoaded). */
function loaded(data: Script.RemoteValue): boolean {
  const v = data.type === "array" && Array.isArray(data.value) ? (data.value[3] as Script.RemoteValue) : null;
  return v?.type === "boolean" && v.value === true;
}

export class HintRelay {
  private readonly waiting: Chunk[] = [];
  private count = 0;
  private running: Promise<void> | null = null;
  /** The chunk being handed over. */
  private current: Chunk | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** Called whenever a chunk is done or the handing over stops. */
  private readonly progress = new Set<() => void>();
  /** Reads under way: the relay hands nothing over meanwhile (each of their page calls would wait behind a chunk). */
  private reads = 0;
  /** Whether the pages have the recorder (held.ts follow): else nothing is ever waited for. */
  recording = false;
  /** Contexts whose new document has not said its loaded page's hints are sent: since when. */
  private readonly expecting = new Map<string, number>();
  private readonly arrivals = new Set<() => void>();

  constructor(
    private readonly socket: BidiSocket,
    /** Whether a context cannot take a script now (its tab shows a dialog, …): its chunks wait. */
    private readonly held: (context: string) => boolean,
  ) {
    socket.on("script.message", null, (p) => {
      const context = p.source.context;
      if (p.channel !== HINT_CHANNEL || !context) return;
      if (loaded(p.data)) {
        this.arrived(context);
        // The page is loaded: a read may come now, and take them along.
        for (const c of this.waiting) if (c.context === context) c.due = Date.now() + HOLD_MS;
      }
      this.take(context, p.data);
    });
    socket.on("browsingContext.navigationStarted", null, (p) => {
      if (!this.recording) return;
      if (this.expecting.size > 1_000) this.expecting.clear();
      this.expecting.set(p.context, Date.now());
    });
    // A step within the document makes no new one, nor does a navigation that failed: nothing to wait for.
    for (const none of [
      "browsingContext.fragmentNavigated",
      "browsingContext.navigationFailed",
      "browsingContext.navigationAborted",
      "browsingContext.downloadWillBegin",
    ] as const)
      socket.on(none, null, (p) => this.arrived(p.context));
  }

  private arrived(context: string): void {
    if (!this.expecting.delete(context)) return;
    for (const a of [...this.arrivals]) a();
  }

  /**
   * Resolves once the document `context` holds said its loaded page's hints are sent (or it was never
   * waited for: no recorder, no navigation seen, one long ago), or after `ms`.
   */
  async reported(context: string, ms: number): Promise<void> {
    const since = this.expecting.get(context);
    if (since === undefined || Date.now() - since > EXPECT_MS) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.arrivals.delete(check);
        resolve();
      };
      const check = () => {
        if (!this.expecting.has(context)) done();
      };
      const timer = setTimeout(done, ms);
      this.arrivals.add(check);
    });
  }

  private take(context: string, data: Script.RemoteValue): void {
    const due = Date.now() + HOLD_MS;
    let chunk: Chunk = { context, takes: [], size: 0, due };
    for (const t of hintTakes(data)) {
      if (this.count + t.ids.length > MAX_WAITING) break;
      if (chunk.size + t.ids.length > CHUNK) {
        this.waiting.push(chunk);
        chunk = { context, takes: [], size: 0, due };
      }
      chunk.takes.push(t);
      chunk.size += t.ids.length;
      this.count += t.ids.length;
    }
    if (chunk.size) this.waiting.push(chunk);
    this.kick();
  }

  /** Starts handing the waiting chunks that are due over, unless it is under way; the rest when due. */
  kick(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running ??= this.run().finally(() => {
      this.running = null;
      this.current = null;
      this.schedule();
      this.tell();
    });
  }

  /** Goes on with what is due now (a kick while the run was ending), or when the next is due. */
  private schedule(): void {
    if (this.socket.closed || this.reads > 0) return;
    const next = Math.min(...this.waiting.filter((c) => !this.held(c.context)).map((c) => c.due));
    if (next <= Date.now()) this.kick();
    else if (Number.isFinite(next)) this.timer = setTimeout(() => this.kick(), next - Date.now());
  }

  private tell(): void {
    for (const p of [...this.progress]) p();
  }

  private async run(): Promise<void> {
    for (;;) {
      const now = Date.now();
      const at = this.waiting.findIndex((c) => c.due <= now && !this.held(c.context));
      if (at < 0 || this.socket.closed || this.reads > 0) return;
      const [chunk] = this.waiting.splice(at, 1) as [Chunk];
      this.current = chunk;
      const args: Script.LocalValue[] = [
        { type: "string", value: takesJson(chunk.takes) },
        ...chunk.takes.flatMap((t) => t.ids.map((sharedId) => ({ sharedId }))),
      ];
      await callScript(
        this.socket,
        {
          functionDeclaration: TAKE,
          target: { context: chunk.context, sandbox: SANDBOX },
          arguments: args,
          awaitPromise: false,
          resultOwnership: "none",
        },
        { timeoutMs: TAKE_MS },
      ).catch(() => undefined);
      this.count -= chunk.size;
      this.current = null;
      this.tell();
    }
  }

  /**
   * What `context`'s document reported that its sandbox may not hold yet (waiting, or in the chunk
   * under way, which the browser may run after the read), for a read to take along in its own call;
   * null when there is none, or more than `few` node references (a flood goes the relay's way).
   */
  claim(context: string, few: number): Claim | null {
    const mine = this.waiting.filter((c) => c.context === context);
    const going = this.current?.context === context ? this.current : null;
    const size = mine.reduce((n, c) => n + c.size, going?.size ?? 0);
    if (!size || size > few) return null;
    for (const c of mine) this.waiting.splice(this.waiting.indexOf(c), 1);
    const taken = mine.reduce((n, c) => n + c.size, 0);
    this.count -= taken;
    const takes = [...(going?.takes ?? []), ...mine.flatMap((c) => c.takes)];
    let back = false;
    return {
      context,
      takes: takesJson(takes),
      ids: takes.flatMap((t) => t.ids),
      giveBack: () => {
        if (back) return;
        back = true;
        for (const c of mine) c.due = 0;
        this.waiting.unshift(...mine);
        this.count += taken;
        this.kick();
      },
    };
  }

  /**
   * Pauses the handing over while a read walks the page (a flood it did not wait for goes on after
   * it, for the next read); returns the way to go on.
   */
  pauseFor(): () => void {
    this.reads++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.reads--;
      this.kick();
    };
  }

  /**
   * Hands over at once what is waiting and resolves once it is handed over, or after `ms`; true when
   * it is. What `except` reported is left as it is: a read takes its own document's along (`claim`).
   * A read waits for a few hints (a frame's, just added), never for a flood (a page of 1,000 rows
   * lists them a read later): past `few` waiting, it does not wait at all.
   */
  async handOver(ms: number, few = Number.POSITIVE_INFINITY, except?: string): Promise<boolean> {
    const other = (c: Chunk) => c.context !== except && !this.held(c.context);
    const flood = this.count > few;
    if (!flood) for (const c of this.waiting) if (other(c)) c.due = 0;
    // What waited for a tab that takes scripts now goes.
    this.kick();
    if (flood) return false;
    const pending = () =>
      (!!this.current && this.current.context !== except) || (!!this.running && this.waiting.some(other));
    const until = Date.now() + ms;
    while (pending() && Date.now() < until) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.progress.delete(done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(0, until - Date.now()));
        this.progress.add(done);
      });
    }
    return !pending();
  }
}
