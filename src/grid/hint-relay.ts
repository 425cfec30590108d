// The outline's hints on their way from the page's own world to the sandbox (spec §1.6). The recorder
// (in-page/page-world.ts, a preload script in the page's world) reports elements through a BiDi
// channel as `script.message` events; the relay hands their node references to the sandbox of the
// same document (in-page/standalone.ts takeHints), a chunk at a time, in the background. A hint may
// make an element appear in the outline and nothing the server decides depends on one: a chunk that
// fails (its document went, a node with it) is dropped, and nothing waits on the relay for long.

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
      if (p.channel !== HINT_CHANNEL || !p.source.context) return;
      if (loaded(p.data)) this.arrived(p.source.context);
      this.take(p.source.context, p.data);
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
    let chunk: Chunk = { context, takes: [], size: 0 };
    for (const t of hintTakes(data)) {
      if (this.count + t.ids.length > MAX_WAITING) break;
      if (chunk.size + t.ids.length > CHUNK) {
        this.waiting.push(chunk);
        chunk = { context, takes: [], size: 0 };
      }
      chunk.takes.push(t);
      chunk.size += t.ids.length;
      this.count += t.ids.length;
    }
    if (chunk.size) this.waiting.push(chunk);
    this.kick();
  }

  /** Starts handing the waiting chunks over, unless it is under way. */
  kick(): void {
    this.running ??= this.run().finally(() => {
      this.running = null;
    });
  }

  private async run(): Promise<void> {
    for (;;) {
      const at = this.waiting.findIndex((c) => !this.held(c.context));
      if (at < 0 || this.socket.closed || this.reads > 0) return;
      const [chunk] = this.waiting.splice(at, 1) as [Chunk];
      const args: Script.LocalValue[] = [
        { type: "string", value: JSON.stringify(chunk.takes.map((t) => [t.kind, t.paths])) },
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
    }
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

  /** Node references received and not handed over yet (the chunk under way included). */
  get waitingCount(): number {
    return this.count;
  }

  /**
   * Resolves once nothing is waiting to be handed over, or after `ms`; true when nothing is. A read
   * waits for a few hints (a page that just added them), never for a flood (a page of 1,000 rows
   * lists them a read later): past `few` waiting, it does not wait at all.
   */
  async settled(ms: number, few = Number.POSITIVE_INFINITY): Promise<boolean> {
    // What waited for a tab that takes scripts now goes.
    this.kick();
    if (this.count > few) return false;
    const until = Date.now() + ms;
    while (this.running && Date.now() < until) {
      await Promise.race([this.running, Bun.sleep(Math.max(0, until - Date.now()))]);
    }
    return !this.running;
  }
}
