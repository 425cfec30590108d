// A person has taken over a workspace's browser (the admin's Take over, src/person/takeover.ts): kept
// in its record so every server of a group sees it. While it holds, an agent's call waits for Hand
// back before its turn, and one that waited WAIT_MS is a 409 naming the person (spec §1.17).
import { conflict } from "../errors.ts";
import type { TakenOver, WorkspaceRecord } from "../store/record.ts";
import type { RecordStore } from "../store/types.ts";

/** How long an agent's call waits for Hand back before a 409. */
const WAIT_MS = 60_000;
const POLL_MS = 250;

/** The take-over in force in `record` at `now` (epoch seconds), else null. */
export function takenOverIn(record: WorkspaceRecord | null, now: number): TakenOver | null {
  const t = record?.taken_over;
  return t && t.until > now ? t : null;
}

const clock = (s: number) => new Date(s * 1000).toISOString().slice(11, 16);

/**
 * Waits while a person has taken over `workspace`; a 409 naming them once `waitMs` passed. Costs one
 * record read when nobody has.
 */
export async function awaitHandBack(
  store: Pick<RecordStore, "get">,
  workspace: string,
  now: () => number,
  signal?: AbortSignal,
  waitMs = WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const t = takenOverIn(await store.get(workspace), now());
    if (!t) return;
    if (Date.now() >= deadline || signal?.aborted)
      throw conflict(
        `${t.by} has taken over workspace ${workspace} (since ${clock(t.since)} UTC): your call waited ${Math.round(waitMs / 1000)} s for them to hand back. Call again later, or ask_human`,
      );
    await Bun.sleep(POLL_MS);
  }
}
