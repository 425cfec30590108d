// One call's timeline entry as invoke() writes it, for a result or a failure a test makes up
// (no browser, so no screen). `time` is the call's (epoch seconds): an entry older than session.ttl
// is expired as it is read.
import type { CallFacts, Timeline } from "../../src/timeline/service.ts";
import type { Ended } from "../../src/workspaces/after.ts";

export async function recordCall(
  t: Timeline,
  call: Omit<CallFacts, "time" | "ms">,
  run: () => Promise<Record<string, unknown>>,
  time = 1000,
): Promise<Record<string, unknown>> {
  let ended: Ended<never>;
  try {
    ended = { ok: true, result: await run(), after: undefined };
  } catch (error) {
    ended = { ok: false, error, after: undefined };
  }
  await t.entry({ ...call, time, ms: 0 }, ended);
  if (!ended.ok) throw ended.error;
  return ended.result;
}
