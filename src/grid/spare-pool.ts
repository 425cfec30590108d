// A pool of spare tabs (spare-tab.ts) that visit many origins side by side, within one total
// budget: a save's read of the history's other sites, a restore's writes.
import { messageOf } from "../errors.ts";
import { cores } from "../in-page/standalone.ts";
import { SANDBOX } from "./bidi.ts";
import {
  borrowSpareTab,
  openSpareTab,
  ServiceWorkerAnswered,
  type SpareBidi,
  type SpareTab,
  SW_REASON,
} from "./spare-tab.ts";

export const SPARE_BUDGET_MS = 20_000;
export const OUT_OF_TIME = "not reached: the spare tab ran out of time";
/** How many spare tabs a pool holds at most unless told (site_data.tabs). */
export const SPARE_TABS = 4;
/**
 * A tab more for every this many visits: a new tab costs a renderer of its own and its set-up and
 * teardown, about what a few visits cost, so a handful of sites is quicker in one. That holds on a
 * browser with two cores; one with more runs tabs side by side for real, and each origin gets a tab
 * of its own (at most one a core, one core left for the browser).
 */
export const VISITS_PER_TAB = 4;

/** The cores of the browser's machine, as its page says (navigator.hardwareConcurrency); 0: unknown. */
export async function browserCores(bidi: SpareBidi, context: string): Promise<number> {
  const reply = await bidi
    .send("script.callFunction", {
      functionDeclaration: String(cores),
      target: { context, sandbox: SANDBOX },
      awaitPromise: false,
    })
    .catch(() => null);
  const n = reply?.type === "success" ? Number(reply.result.value) : 0;
  return Number.isInteger(n) && n > 0 ? n : 0;
}

export interface SpareJob {
  origin: string;
  /** A function declaration run in the sandbox of the origin's marked page, given `arg`. */
  fn: string;
  arg?: string;
}

export type SpareOutcome =
  | { origin: string; ok: true; value: unknown }
  | { origin: string; ok: false; reason: string };

/** Why an origin was not read or written, as a caller may see it. */
export function whyFailed(err: unknown): string {
  return err instanceof ServiceWorkerAnswered ? SW_REASON : messageOf(err);
}

/** Closes a tab that may still be opening, or may never have opened; never throws. */
export async function closeTab(tab: Promise<SpareTab>): Promise<void> {
  await tab.then(
    (t) => t.close(),
    () => undefined,
  );
}

const STOP = Symbol("stop");

/**
 * A few spare tabs, each with its own intercept, that visit origins side by side. `warm` opens
 * tabs ahead of the work; `run` uses them (opening more when there is more to do than they were
 * opened for); `close` closes every tab it opened, whatever state it is in, and never throws.
 */
export class SparePool {
  private readonly tabs: Promise<SpareTab>[] = [];
  private closing: Promise<void> | null = null;
  /** The browser's cores, once known (browserCores); 0 until then. */
  private cores = 0;

  constructor(
    private readonly bidi: SpareBidi,
    readonly size: number = SPARE_TABS,
    /**
     * A tab to lend as the pool's first (borrowSpareTab) rather than open one. Such a tab costs no
     * renderer, so on a browser of 2 cores or fewer it takes every visit: a second tab only adds
     * its set-up there (measured in bench/site-data.ts).
     */
    private readonly borrow?: () => Promise<{ context: string; after?: Promise<unknown> }>,
  ) {}

  /**
   * How many tabs `jobs` visits get, at most `size`: one for every VISITS_PER_TAB (all in the lent
   * tab, when there is one), or, on a browser with more than 2 cores, one a visit up to one a core
   * less one.
   */
  tabsFor(jobs: number): number {
    if (jobs <= 0) return 0;
    const most = Math.max(1, Math.floor(this.size));
    if (this.cores > 2) return Math.min(most, this.cores - 1, jobs);
    return this.borrow ? 1 : Math.min(most, Math.ceil(jobs / VISITS_PER_TAB));
  }

  /** The browser's cores are known: more tabs open for `jobs` visits if they allow. */
  useCores(cores: number, jobs: number): void {
    this.cores = cores;
    this.warm(jobs);
  }

  /** Starts opening the tabs `jobs` visits to come get; returns at once. */
  warm(jobs: number): void {
    if (this.closing) return;
    while (this.tabs.length < this.tabsFor(jobs)) {
      const lend = this.tabs.length === 0 ? this.borrow : undefined;
      const tab = lend
        ? lend().then(
            ({ context, after }) => borrowSpareTab(this.bidi, context, after),
            // No tab to lend (none found): a tab of its own does the work.
            () => openSpareTab(this.bidi),
          )
        : openSpareTab(this.bidi);
      tab.catch(() => undefined);
      this.tabs.push(tab);
      this.joining?.(tab, this.tabs.length - 1);
    }
  }

  /** While a run is on, a tab opened meanwhile (the cores became known) joins it. */
  private joining: ((tab: Promise<SpareTab>, n: number) => void) | null = null;

  /**
   * Runs every job and says for each, in the order given, what happened; never throws. Each tab
   * takes the next job as soon as it is free (claimed while it finishes the one before, so its page
   * is on the way), so a slow origin holds only its own tab; no job runs before `ready`. One origin
   * failing does not stop the rest; a tab that cannot open leaves its share to the others, and
   * when none opens every job fails with the first one's reason; the whole run stops at the budget,
   * and each job not finished by then says so.
   */
  async run(
    jobs: readonly SpareJob[],
    opts: { budgetMs?: number; ready?: Promise<unknown> } = {},
  ): Promise<SpareOutcome[]> {
    if (jobs.length === 0) return [];
    this.warm(jobs.length);
    const done = new Map<number, SpareOutcome>();
    let next = 0;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stop: () => void = () => undefined;
    // The budget, and the end of the work, stop every tab still waiting for its turn or its tab.
    const stopping = new Promise<typeof STOP>((resolve) => {
      stop = () => {
        stopped = true;
        resolve(STOP);
      };
      timer = setTimeout(stop, opts.budgetMs ?? SPARE_BUDGET_MS);
    });
    // Why each tab that could not open did not (by tab), and how many did not.
    const failures = new Map<number, unknown>();
    const worker = async (opening: Promise<SpareTab>, n: number): Promise<void> => {
      let tab: SpareTab | typeof STOP;
      try {
        tab = await Promise.race([opening, stopping]);
      } catch (err) {
        failures.set(n, err);
        return;
      }
      // A job this tab claimed while on the one before (its page already on the way).
      let claimed: number | null = null;
      const claim = () => {
        if (stopped || next >= jobs.length) return undefined;
        claimed = next++;
        return (jobs[claimed] as SpareJob).origin;
      };
      while (tab !== STOP && !stopped && (claimed !== null || next < jobs.length)) {
        const i: number = claimed ?? next++;
        claimed = null;
        const job = jobs[i] as SpareJob;
        const work = tab.run(job.origin, job.fn, job.arg, { next: claim, ready: opts.ready });
        work.catch(() => undefined); // may settle after the budget stopped the run
        try {
          const value = await Promise.race([work, stopping]);
          if (value === STOP) break;
          done.set(i, { origin: job.origin, ok: true, value });
        } catch (err) {
          done.set(i, { origin: job.origin, ok: false, reason: whyFailed(err) });
        }
        if (done.size === jobs.length) stop();
      }
    };
    const workers = this.tabs.map((t, n) => worker(t, n));
    this.joining = (t, n) => workers.push(worker(t, n));
    try {
      // Read by index: a worker that joins while these run is waited for too.
      for (let i = 0; i < workers.length; i++) await workers[i];
    } finally {
      this.joining = null;
      clearTimeout(timer);
    }
    // No tab opened: every job fails with the first tab's reason.
    const first = [...failures.keys()].sort((a, b) => a - b)[0];
    const reason =
      first !== undefined && failures.size === this.tabs.length
        ? messageOf(failures.get(first))
        : OUT_OF_TIME;
    return jobs.map((job, i) => done.get(i) ?? { origin: job.origin, ok: false, reason });
  }

  /** Closes every tab, the ones still opening too; never throws. */
  close(): Promise<void> {
    this.closing ??= Promise.all(this.tabs.map(closeTab)).then(() => undefined);
    return this.closing;
  }
}
