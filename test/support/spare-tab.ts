// The spare tab's pieces put together the two ways the tests drive them: one tab around a
// function, and a pool of tabs for a list of jobs. Both always close their tabs.
import { expect } from "bun:test";
import type { SpareBidi } from "../../src/site-data/spare-page.ts";
import { type SpareJob, type SpareOutcome, SparePool } from "../../src/site-data/spare-pool.ts";
import { openSpareTab, type SpareRun } from "../../src/site-data/spare-tab.ts";
import type { FakeBidi } from "./fake-bidi.ts";

/** Nothing of the first spare tab is left, and its handler outlived its intercept. */
export function expectTornDown(bidi: FakeBidi): void {
  expect(bidi.tabs.has("spare-1")).toBe(false);
  expect(bidi.handlers).toBe(0);
  expect(bidi.openIntercepts).toBe(0);
  expect(bidi.handlerGoneFirst).toEqual([]);
}

export async function withSpareTab<T>(bidi: SpareBidi, fn: (run: SpareRun) => Promise<T>): Promise<T> {
  const tab = await openSpareTab(bidi);
  try {
    return await fn(tab.run);
  } finally {
    await tab.close();
  }
}

/** The jobs in a pool of `tabs` (one unless told, which is one tab in order). */
export async function spareLoop(
  bidi: SpareBidi,
  jobs: readonly SpareJob[],
  opts: { budgetMs?: number; tabs?: number } = {},
): Promise<SpareOutcome[]> {
  const pool = new SparePool(bidi, opts.tabs ?? 1);
  try {
    return await pool.run(jobs, opts);
  } finally {
    await pool.close();
  }
}
