// One call's timeline entry as the call pipeline writes it, for a result or a failure a test makes
// up (no browser, so no screen). `time` is the call's (epoch seconds): an entry older than
// session.ttl is expired as it is read.

import type { CallEnd, Ended } from "../../src/actions/call.ts";
import type { Timeline } from "../../src/timeline/service.ts";

export async function recordCall(
  t: Timeline,
  call: Pick<CallEnd, "surface" | "workspace" | "action" | "args" | "located">,
  run: () => Promise<Record<string, unknown>>,
  time = 1000,
): Promise<Record<string, unknown>> {
  let ended: Ended;
  try {
    ended = { ok: true, result: await run() };
  } catch (error) {
    ended = { ok: false, error };
  }
  await t.ended({ ...call, time, ms: 0, ended, browser: null });
  if (!ended.ok) throw ended.error;
  return ended.result;
}
