// Calls on one workspace run one at a time across every server of a group: each takes the
// workspace's lease in the record store first (SQLite: a row; Redis: a key set only when absent,
// holding a fencing token), renews it while the call runs, and gives it back after. A call that
// finds it held waits in the store's queue, so calls are served in the order they came, whichever
// server took them. A server that dies mid-call stops renewing: its lease runs out after `ms`.
// The same lease, tried once, is the collector's claim on a recording.
import { type AppError, LeaseLost } from "../errors.ts";
import type { LeaseFence, RecordStore } from "../store/types.ts";

/** A lease this server holds. */
export interface Lease {
  readonly fence: LeaseFence;
  /** Aborted (with LeaseLost) once the lease is known lost: not renewed in time, or broken. */
  readonly lost: AbortSignal;
  /** How long it waited in line for the lease (0: it was free). */
  readonly waitedMs: number;
  /** Gives it back (never throws: a lease that cannot be given back runs out). */
  release(): Promise<void>;
}

/** A caller's place in a name's line (Leases.line). */
export interface Line {
  readonly ticket: string;
  /** How long the lease lives unless renewed, ms. */
  readonly ms: number;
  /** After a try that found the lease held: the pause before the next (a 503 once the wait ran out). */
  wait(): Promise<void>;
  /** The lease the store granted, renewed from now on. */
  held(token: number): Lease;
  /** Gives up the place (the wait ran out or was stopped). */
  leave(): Promise<void>;
}

export interface WaitOptions {
  /** The longest wait in line, ms. */
  waitMs: number;
  /** Stops the wait (the caller went away). */
  signal?: AbortSignal;
  /** The 503 when the wait runs out. */
  busy: () => AppError;
}

/**
 * The first pause between looks, and the longest. A release on this server wakes its waiters at
 * once, and so does one on another server where the store says so (Redis).
 */
const FIRST_PAUSE_MS = 5;
const MAX_PAUSE_MS = 50;

export class Leases {
  /** Waiters of this server per name, woken when this server gives the name back. */
  private readonly sleepers = new Map<string, Set<() => void>>();
  /** Listening for other servers' releases (from the first wait on). */
  private watching = false;
  /** Calls that waited for a lease, and the ms they waited in all (for the bench). */
  readonly waits = { count: 0, ms: 0 };

  /** `ms`: how long a lease lives unless renewed (session.lease). */
  constructor(
    private readonly store: RecordStore,
    readonly ms: number,
  ) {}

  /**
   * A place in `name`'s line for a caller that asks the store itself (`takeLeaseReading` with its
   * `ticket`, the workspace's record read in the same step): `wait` after a try that found the lease
   * held (the 503 once `opts.waitMs` ran out), `held` with the token granted, `leave` when it gives up.
   */
  line(name: string, opts: WaitOptions): Line {
    const ticket = crypto.randomUUID();
    const started = Date.now();
    const deadline = started + opts.waitMs;
    let pause = FIRST_PAUSE_MS;
    let waited = false;
    opts.signal?.throwIfAborted();
    return {
      ticket,
      ms: this.ms,
      wait: async () => {
        waited = true;
        const left = deadline - Date.now();
        if (left <= 0) throw opts.busy();
        await this.nap(name, Math.min(pause, left), opts.signal);
        pause = Math.min(MAX_PAUSE_MS, pause * 2);
        opts.signal?.throwIfAborted();
      },
      held: (token) => {
        const waitedMs = waited ? Date.now() - started : 0;
        if (waited) {
          this.waits.count++;
          this.waits.ms += waitedMs;
        }
        return this.leased(name, token, waitedMs);
      },
      leave: async () => {
        if (waited) await this.store.leaveLeaseQueue(name, ticket).catch(() => undefined);
      },
    };
  }

  /** The lease now, or null when another holds it (or waits for it): no waiting in line. */
  async tryTake(name: string): Promise<Lease | null> {
    const ticket = crypto.randomUUID();
    const token = await this.store.takeLease(name, ticket, this.ms);
    if (token !== null) return this.leased(name, token);
    await this.store.leaveLeaseQueue(name, ticket).catch(() => undefined);
    return null;
  }

  private leased(name: string, token: number, waitedMs = 0): Lease {
    const lost = new AbortController();
    // Until when this server knows the lease is its own: from when its last renewal was sent.
    let until = Date.now() + this.ms;
    let renewing = false;
    const loseIt = () => {
      clearInterval(timer);
      if (!lost.signal.aborted) lost.abort(new LeaseLost(name));
    };
    const timer = setInterval(
      async () => {
        if (renewing) {
          if (Date.now() >= until) loseIt();
          return;
        }
        renewing = true;
        const sent = Date.now();
        try {
          if (await this.store.renewLease(name, token, this.ms)) until = sent + this.ms;
          else loseIt();
        } catch {
          // The store did not answer: the lease may still be ours until `until`.
          if (Date.now() >= until) loseIt();
        } finally {
          renewing = false;
        }
      },
      Math.max(50, Math.floor(this.ms / 3)),
    );
    timer.unref?.();
    let released = false;
    return {
      fence: { name, token },
      lost: lost.signal,
      waitedMs,
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(timer);
        await this.store.releaseLease(name, token).catch(() => undefined);
        this.wake(name);
      },
    };
  }

  private nap(name: string, ms: number, signal?: AbortSignal): Promise<void> {
    if (!this.watching) {
      this.watching = true;
      this.store.watchLeases?.((freed) => this.wake(freed));
    }
    return new Promise((resolve) => {
      const set = this.sleepers.get(name) ?? new Set<() => void>();
      this.sleepers.set(name, set);
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        set.delete(done);
        if (set.size === 0 && this.sleepers.get(name) === set) this.sleepers.delete(name);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener("abort", done, { once: true });
      set.add(done);
    });
  }

  private wake(name: string): void {
    for (const done of [...(this.sleepers.get(name) ?? [])]) done();
  }
}
