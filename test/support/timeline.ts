// One call's timeline entry as the call pipeline writes it, for a result or a failure a test makes
// up (no browser, so no screen). `time` is the call's (epoch seconds): an entry older than
// session.ttl is expired as it is read.

import type { CallEnd, Ended } from "../../src/actions/call.ts";
import { type Config, defaultConfig } from "../../src/config/schema.ts";
import { StepTools, type ToolTable } from "../../src/flows/tools.ts";
import { Log } from "../../src/log.ts";
import { ACTIONS } from "../../src/registry.ts";
import { SecretCatalogue } from "../../src/secrets/catalogue.ts";
import { Redactor } from "../../src/secrets/redactor.ts";
import { SqliteStore } from "../../src/store/sqlite.ts";
import type { RecordStore } from "../../src/store/types.ts";
import { MemoryLog, type TimelineLog } from "../../src/timeline/log.ts";
import { Timeline } from "../../src/timeline/service.ts";

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

/** A timeline on `store` with no browser to reach (a screen or a page read fails), its clock at 1000 s. */
export function browserlessTimeline(opts: {
  config?: Config;
  log?: TimelineLog;
  store?: RecordStore;
  tools?: ToolTable;
  now?: () => number;
}): Timeline {
  const config = opts.config ?? defaultConfig();
  return new Timeline({
    config,
    log: opts.log ?? new MemoryLog(10),
    logger: new Log(),
    store: opts.store ?? new SqliteStore(),
    connection: async () => {
      throw new Error("no browser here");
    },
    redactor: new Redactor(new SecretCatalogue(config.secrets)),
    tools: opts.tools ?? new StepTools(() => ACTIONS),
    now: opts.now ?? (() => 1000),
    events: { changed: () => undefined },
  });
}
