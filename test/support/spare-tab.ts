// The spare tab's pieces put together the two ways the tests drive them: one tab around a
// function, and one tab for a list of jobs. Both always close the tab.
import {
  closeTab,
  openSpareTab,
  runJobs,
  type SpareBidi,
  type SpareJob,
  type SpareOutcome,
  type SpareRun,
} from "../../src/grid/spare-tab.ts";

export async function withSpareTab<T>(
  bidi: SpareBidi,
  fn: (run: SpareRun) => Promise<T>,
  opts: { context?: string } = {},
): Promise<T> {
  const tab = await openSpareTab(bidi, opts);
  try {
    return await fn(tab.run);
  } finally {
    await tab.close();
  }
}

export async function spareLoop(
  bidi: SpareBidi,
  jobs: readonly SpareJob[],
  opts: { budgetMs?: number } = {},
): Promise<SpareOutcome[]> {
  const tab = openSpareTab(bidi);
  try {
    return await runJobs(tab, jobs, opts);
  } finally {
    await closeTab(tab);
  }
}
