// A pool of spare tabs (spare-tab.ts) that visit many origins side by side, within one total
// budget: a save's read of the history's other sites, a restore's writes.
import { messageOf } from "../errors.ts";
import { remoteValue, SANDBOX } from "../grid/bidi.ts";
import { callScript } from "../grid/page-call.ts";
import { cores } from "../in-page/standalone.ts";
import { FRAMES_PER_PAGE, type FrameResult, type SpareBidi, SW_REASON, spareUrl } from "./spare-page.ts";
import { borrowSpareTab, openSpareTab, ServiceWorkerAnswered, type SpareTab } from "./spare-tab.ts";

export const SPARE_BUDGET_MS = 20_000;
export const OUT_OF_TIME = "not reached: the spare tab ran out of time";
/** How many spare tabs a pool holds at most unless told (site_data.tabs). */
export const SPARE_TABS = 4;
/**
 * A tab more for every this many pages: a new tab costs a renderer of its own and its set-up and
 * teardown, about what a few visits cost, so a handful of pages is quicker in one. That holds on a
 * browser with two cores (a page of frames already loads them side by side: 19 sites of one site
 * saved in 1,130 ms in one tab against 1,389 in two and 1,609 in three, bench/site-data.ts); one
 * with more cores runs tabs side by side for real, and each page gets a tab of its own (at most one
 * a core, one core left for the browser).
 */
export const VISITS_PER_TAB = 4;

/** The cores of the browser's machine, as its page says (navigator.hardwareConcurrency); 0: unknown. */
export async function browserCores(bidi: SpareBidi, context: string): Promise<number> {
  const reply = await callScript(bidi, {
    functionDeclaration: String(cores),
    target: { context, sandbox: SANDBOX },
    awaitPromise: false,
  }).catch(() => null);
  const n = reply?.type === "success" ? Number(remoteValue(reply.result)) : 0;
  return Number.isInteger(n) && n > 0 ? n : 0;
}

export interface SpareJob {
  origin: string;
  /** A function declaration run in the sandbox of the origin's marked page, given `arg`. */
  fn: string;
  arg?: string;
}

/**
 * A guess at the site of an http(s) origin (its scheme and last two labels), to put origins that
 * may share one on one page in frames; the browser has the last word (`firstParty`), a wrong guess
 * costs a visit. Null for an IP address or a single label: never guessed.
 */
export function siteGuess(origin: string): string | null {
  try {
    const { protocol, hostname } = new URL(origin);
    if (!/^https?:$/.test(protocol) || !hostname.includes(".") || hostname.startsWith("[")) return null;
    if (/^[\d.]+$/.test(hostname)) return null;
    return `${protocol}//${hostname.split(".").slice(-2).join(".")}`;
  } catch {
    return null;
  }
}

/**
 * How many pages `origins` take: one each, but with `frames`, origins that may share a site go in
 * frames of one, FRAMES_PER_PAGE at most.
 */
export function pagesOf(origins: readonly string[], frames: boolean): number {
  const sites = new Map<string, number>();
  let alone = 0;
  for (const o of origins) {
    const guess = frames ? siteGuess(o) : null;
    if (guess) sites.set(guess, (sites.get(guess) ?? 0) + 1);
    else alone++;
  }
  return alone + [...sites.values()].reduce((n, k) => n + Math.ceil(k / FRAMES_PER_PAGE), 0);
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

/** A page a tab visits: a job's origin, and jobs (by index) in frames of that page. */
interface Visit {
  top: number;
  frames: number[];
}

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
    /** Whether origins that may share a site go in frames of one page (see FRAMES_PER_PAGE). */
    private readonly frames = false,
  ) {}

  /**
   * How many tabs `pages` visits get (visitsOf), at most `size`: one for every VISITS_PER_TAB (all
   * in the lent tab, when there is one), or, on a browser with more than 2 cores, one a page up to
   * one a core less one.
   */
  tabsFor(pages: number): number {
    if (pages <= 0) return 0;
    const most = Math.max(1, Math.floor(this.size));
    if (this.cores > 2) return Math.min(most, this.cores - 1, pages);
    return this.borrow ? 1 : Math.min(most, Math.ceil(pages / VISITS_PER_TAB));
  }

  /** How many pages this pool takes for `origins` (pagesOf). */
  visitsOf(origins: readonly string[]): number {
    return pagesOf(origins, this.frames);
  }

  /** The browser's cores are known: more tabs open for `pages` visits (visitsOf) if they allow. */
  useCores(cores: number, pages: number): void {
    this.cores = cores;
    this.warm(pages);
  }

  /** Starts opening the tabs `pages` visits (visitsOf) to come get; returns at once. */
  warm(pages: number): void {
    if (this.closing) return;
    while (this.tabs.length < this.tabsFor(pages)) {
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
    this.warm(this.visitsOf(jobs.map((j) => j.origin)));
    const done = new Map<number, SpareOutcome>();
    // Jobs some tab took (or holds claimed); a job back from a frame is free again, for a page of its own.
    const taken = jobs.map(() => false);
    const alone = new Set<number>();
    const guesses = jobs.map((j) => (this.frames ? siteGuess(j.origin) : null));
    /** The next free job, with the free jobs that may share its site in frames of its page. */
    const claimVisit = (): Visit | null => {
      const top = taken.indexOf(false);
      if (top < 0) return null;
      taken[top] = true;
      const frames: number[] = [];
      const guess = alone.has(top) ? null : guesses[top];
      for (let j = top + 1; guess && j < jobs.length && frames.length < FRAMES_PER_PAGE - 1; j++) {
        if (taken[j] || alone.has(j) || guesses[j] !== guess) continue;
        taken[j] = true;
        frames.push(j);
      }
      return { top, frames };
    };
    /** A frame's job not done there is free again, for a page of its own. */
    const again = (j: number) => {
      alone.add(j);
      taken[j] = false;
    };
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
      // A visit this tab claimed while on the one before (its page already on the way).
      let claimed: Visit | null = null;
      const claim = () => {
        if (stopped) return undefined;
        claimed = claimVisit();
        if (!claimed) return undefined;
        const frames = claimed.frames.map((j) => (jobs[j] as SpareJob).origin);
        return spareUrl((jobs[claimed.top] as SpareJob).origin, frames);
      };
      while (tab !== STOP && !stopped) {
        const visit: Visit | null = claimed ?? claimVisit();
        claimed = null;
        if (!visit) break;
        const { top: i, frames } = visit;
        const job = jobs[i] as SpareJob;
        let told = false;
        const framed = (results: FrameResult[]) => {
          told = true;
          results.forEach((r, k) => {
            const j = frames[k] as number;
            if (r.ok) done.set(j, { origin: (jobs[j] as SpareJob).origin, ok: true, value: r.value });
            else again(j);
          });
        };
        const work = tab.run(job.origin, job.fn, job.arg, {
          next: claim,
          ready: opts.ready,
          frames: frames.map((j) => jobs[j] as SpareJob),
          framed,
        });
        work.catch(() => undefined); // may settle after the budget stopped the run
        try {
          const value = await Promise.race([work, stopping]);
          if (value === STOP) break;
          done.set(i, { origin: job.origin, ok: true, value });
        } catch (err) {
          done.set(i, { origin: job.origin, ok: false, reason: whyFailed(err) });
        }
        // A visit that failed before its frames ran leaves them for pages of their own.
        if (!told) for (const j of frames) again(j);
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
