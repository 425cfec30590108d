// The held connections of this server, one per live browser (held.ts is one of them): opened on
// first use, opened again when one dropped, closed when the browser ends, is replaced or reaped. Each
// browser's preload script and console/network ring outlive its connections.

import type { Script } from "webdriver-bidi-protocol";
import { BidiDead, type BidiSocket, BidiTimeout } from "./bidi.ts";
import { applyEmulation, type Emulation, emulationKey } from "./emulation.ts";
import { DEFAULT_KEEP, EventRing, QUIET } from "./event-log.ts";
import { HeldConnection, IDLE_MS } from "./held.ts";
import { Interceptor, type NetRules } from "./net-rules.ts";
import { ReachedDocs } from "./reached.ts";

/** The held connections of this server, by Grid session id (which never leaves the server). */
export class HeldConnections {
  private readonly held = new Map<string, HeldConnection>();
  private readonly opening = new Map<string, Promise<HeldConnection>>();

  /** Each browser's preload scripts, kept across its connections so a new one replaces them. */
  private readonly preloads = new Map<string, string[]>();
  /** Each browser's console and network ring, kept across its connections. */
  private readonly rings = new Map<string, EventRing>();
  /** Each browser's record of the documents the agent's scripts reached, kept across its connections. */
  private readonly reached = new Map<string, ReachedDocs>();
  /** Browsers whose channel died (it stopped answering a probe): no connection is opened again. */
  private readonly deadIds = new Set<string>();
  /** Browsers that follow no console (QUIET). */
  private readonly quietIds = new Set<string>();
  /** Each browser's network rules (a policy, routes): its connection intercepts and never idles out. */
  private readonly rules = new Map<string, NetRules>();
  /** What each browser was told to emulate (the browser keeps it across its connections). */
  private readonly emulated = new Map<string, Emulation>();

  constructor(
    private readonly connect: (id: string) => Promise<BidiSocket>,
    private readonly idleMs = IDLE_MS,
    private readonly preload: Script.AddPreloadScriptParameters[] = [],
    private readonly keep = DEFAULT_KEEP,
  ) {}

  /** The browser's connection, opened (or opened again) when it has none. */
  get(id: string): Promise<HeldConnection> {
    if (this.deadIds.has(id)) return Promise.reject(new BidiDead());
    const known = this.held.get(id);
    if (known && !known.closed) return Promise.resolve(known);
    if (known) this.held.delete(id);
    const pending = this.opening.get(id);
    if (pending) return pending;
    const opening = this.open(id).finally(() => this.opening.delete(id));
    this.opening.set(id, opening);
    return opening;
  }

  /** The browser's connection when one is open, without opening one. */
  peek(id: string): HeldConnection | undefined {
    const known = this.held.get(id);
    return known && !known.closed ? known : undefined;
  }

  /**
   * The browser's connection when one is open with `rules` and `emulation` in place already: a call
   * may use it at once, nothing to send (configure and emulate would do nothing).
   */
  ready(id: string, rules: NetRules | null, emulation: Emulation | null): HeldConnection | undefined {
    const conn = this.peek(id);
    if (!conn || (this.rules.get(id)?.key ?? null) !== (rules?.key ?? null)) return undefined;
    return emulationKey(this.emulated.get(id) ?? null) === emulationKey(emulation) ? conn : undefined;
  }

  /** Whether the browser's channel was found dead: it is to be ended and replaced. */
  dead(id: string): boolean {
    return this.deadIds.has(id);
  }

  /** The browser follows no console: its connections leave log.entryAdded out (see QUIET). */
  quiet(id: string): void {
    this.quietIds.add(id);
    this.ringOf(id).notice(QUIET);
  }

  /**
   * The browser's network rules from now on (null: none). A connection open now installs them at
   * once; one opened later, before any use. Same key as before: nothing to do.
   */
  async configure(id: string, rules: NetRules | null): Promise<void> {
    const before = this.rules.get(id);
    if ((before?.key ?? null) === (rules?.key ?? null)) return;
    if (rules) this.rules.set(id, rules);
    else this.rules.delete(id);
    const conn = this.peek(id);
    if (!conn) return;
    await this.applyRules(id, conn);
  }

  /**
   * The browser emulates `want` from now on (null: nothing): only what changed is sent, so a
   * browser that emulates nothing is never asked. A value the browser refuses is a 400 (emulation.ts).
   */
  async emulate(id: string, conn: HeldConnection, want: Emulation | null): Promise<void> {
    const had = this.emulated.get(id) ?? null;
    if (emulationKey(had) === emulationKey(want)) return;
    try {
      await applyEmulation(conn.socket, want ?? {}, had);
    } finally {
      // Refused partway, the fields before the refused one are in place: the next change diffs against
      // all of `want` (what was refused is sent again, harmlessly).
      if (want) this.emulated.set(id, want);
      else this.emulated.delete(id);
    }
  }

  private async applyRules(id: string, conn: HeldConnection): Promise<void> {
    const rules = this.rules.get(id);
    if (!rules) {
      await conn.net?.remove();
      conn.net = null;
      return;
    }
    conn.net ??= new Interceptor(conn.socket, conn.logs, rules);
    await conn.net.install(rules);
  }

  /** Closes and forgets the browser's connection (it ended, was replaced or reaped). */
  drop(id: string): void {
    const known = this.held.get(id);
    this.held.delete(id);
    this.deadIds.delete(id);
    this.quietIds.delete(id);
    this.rules.delete(id);
    this.emulated.delete(id);
    this.preloads.delete(id);
    this.rings.delete(id);
    this.reached.delete(id);
    known?.close();
    // One still opening is closed as soon as it opens.
    const pending = this.opening.get(id);
    if (pending) {
      pending.then(
        (c) => {
          if (this.held.get(id) === c) this.held.delete(id);
          c.close();
        },
        () => undefined,
      );
    }
  }

  /** How many connections are open now (the leak tests count them). */
  get size(): number {
    let n = 0;
    for (const c of this.held.values()) if (!c.closed) n++;
    return n;
  }

  private ringOf(id: string): EventRing {
    const ring = this.rings.get(id) ?? new EventRing(this.keep);
    this.rings.set(id, ring);
    return ring;
  }

  private reachedOf(id: string): ReachedDocs {
    const r = this.reached.get(id) ?? new ReachedDocs();
    this.reached.set(id, r);
    return r;
  }

  closeAll(): void {
    for (const id of [...this.held.keys()]) this.drop(id);
  }

  private async open(id: string): Promise<HeldConnection> {
    const socket = await this.connect(id);
    const conn = new HeldConnection(
      socket,
      () => {
        // Its requests wait for this connection's answer: it stays while the browser has rules.
        if (this.rules.has(id)) return;
        if (this.held.get(id) === conn) this.held.delete(id);
        conn.close();
        socket.logger.debug("a browser's BiDi connection closed after its idle time");
      },
      this.idleMs,
      this.ringOf(id),
      this.reachedOf(id),
    );
    try {
      // A preload script outlives the connection that added it: the last ones go first.
      for (const old of this.preloads.get(id) ?? [])
        await socket.send("script.removePreloadScript", { script: old }).catch(() => undefined);
      const scripts = await conn.follow(
        this.preload,
        (late) => {
          if (this.held.get(id) === conn) this.preloads.set(id, late);
        },
        !this.quietIds.has(id),
      );
      if (scripts) this.preloads.set(id, scripts);
      await this.applyRules(id, conn);
    } catch (err) {
      // A fresh connection whose first commands time out is probed: a dead channel is said so.
      const dead = socket.dead || (err instanceof BidiTimeout && !(await socket.probe()) && socket.dead);
      conn.close();
      if (dead) {
        this.deadIds.add(id);
        throw new BidiDead();
      }
      throw err;
    }
    socket.onClose(() => {
      if (this.held.get(id) === conn) this.held.delete(id);
      if (socket.dead) this.deadIds.add(id);
    });
    this.held.set(id, conn);
    socket.logger.debug(`holding a BiDi connection (${this.size} open)`);
    return conn;
  }
}
