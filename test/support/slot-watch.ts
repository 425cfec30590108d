// `npm test`'s preload: between two test files, the Grid and the hub hold no browser. When the next
// file starts (Bun.main changes: seen by a timer as its beforeAll awaits, or by its first test), the
// file before has run its afterAll; a browser on the Grid at that moment and still there a few
// seconds on was left by it, and would hold one of the two slots for the files after it ("the Grid
// has no free slot" a few files later). The file is named on stderr and in SLOT_WATCH_REPORT
// (scripts/test.mjs fails the run on it), and its browsers are ended so the next files run on free
// slots. No loader plugin: a runtime plugin turns Bun's macros off (and caches the page library
// unbuilt).

import { afterAll, afterEach, beforeEach } from "bun:test";
import { appendFileSync } from "node:fs";

const grids = [process.env.TEST_GRID_URL, process.env.TEST_HUB_URL].filter((g): g is string => !!g);
/** A browser ending as its server closes may take a while to leave the Grid's slot (seconds, under load). */
const GRACE_MS = 15_000;

async function sessions(grid: string): Promise<string[]> {
  const res = await fetch(`${grid}/status`, { signal: AbortSignal.timeout(3000) }).catch(() => null);
  const body = (await res?.json().catch(() => null)) as {
    value?: { nodes?: Array<{ slots?: Array<{ session?: { sessionId?: string } | null }> }> };
  } | null;
  return (body?.value?.nodes ?? []).flatMap((n) =>
    (n.slots ?? []).flatMap((s) => (s.session?.sessionId ? [s.session.sessionId] : [])),
  );
}

/**
 * The browsers on each Grid as `file` ended (`ended`, asked as the next file began) that are still
 * there after the grace: named, then ended.
 */
async function check(file: string, ended: Promise<string[][]>): Promise<void> {
  const at = await ended;
  for (const [i, grid] of grids.entries()) {
    const then = at[i] ?? [];
    let left = then;
    for (const until = Date.now() + GRACE_MS; left.length && Date.now() < until; ) {
      await Bun.sleep(250);
      const now = new Set(await sessions(grid));
      // Only those there as the file ended: the next file's own browsers are not counted.
      left = then.filter((id) => now.has(id));
    }
    if (!left.length) continue;
    const said = `${file} left ${left.length} browser(s) on ${grid}: ${left.join(", ")}`;
    process.stderr.write(`\n[slot-watch] ${new Date().toISOString()} ${said}\n`);
    if (process.env.SLOT_WATCH_REPORT) appendFileSync(process.env.SLOT_WATCH_REPORT, `${said}\n`);
    for (const id of left)
      await fetch(`${grid}/session/${id}`, { method: "DELETE", signal: AbortSignal.timeout(10_000) }).catch(
        () => undefined,
      );
  }
}

let current: string | null = null;
let checks = Promise.resolve();
function seen(): void {
  if (!grids.length || Bun.main === current) return;
  const finished = current;
  current = Bun.main;
  if (!finished) return;
  // Asked now, not once the checks before are done: by then the next file may have opened its own.
  const ended = Promise.all(grids.map(sessions));
  checks = checks.then(() => check(finished, ended));
}
setInterval(seen, 2).unref();
beforeEach(seen);
afterAll(async () => {
  await checks;
  if (current) await check(current, Promise.all(grids.map(sessions)));
});

// SLOT_WATCH_TRACE=1: the Grid's browsers after every test (which test opened one that stays).
if (process.env.SLOT_WATCH_TRACE)
  afterEach(async () => {
    for (const grid of grids)
      process.stderr.write(
        `[slot-watch] ${new Date().toISOString()} ${grid}: ${(await sessions(grid)).join(", ")}\n`,
      );
  });
