// Builds the recordings collector for the composition root when recording is on: it files into the
// data dir's file store, and refuses an inbox it cannot move files out of. A ConfigError here stops
// the boot like a bad setting.
import { accessSync, constants, statSync } from "node:fs";
import { RECORDING_NEEDS_DATA, recordingDir } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import { ConfigError } from "../config/sources.ts";
import type { FileStore } from "../files/store.ts";
import type { Log } from "../log.ts";
import { Collector } from "./collector.ts";
import { polling } from "./mounts.ts";
import type { Claims, CollectorOptions } from "./owed.ts";

function inboxProblem(inbox: string): string | null {
  try {
    if (!statSync(inbox).isDirectory()) throw new Error("not a folder");
    accessSync(inbox, constants.R_OK | constants.W_OK | constants.X_OK);
    return null;
  } catch {
    return `recording.dir ${inbox} must exist and be readable and writable by this server: filing a recording moves it out`;
  }
}

/** The collector, or null when recording is off; recording without a data dir's file store is refused. */
export function setupRecordings(
  config: Config,
  store: FileStore | null,
  deps: {
    liveIds: CollectorOptions["liveIds"];
    claims: Claims;
    events: CollectorOptions["events"];
    log: Log;
  },
): Collector | null {
  if (config.recording.enabled && !store) throw new ConfigError(RECORDING_NEEDS_DATA);
  if (!config.recording.enabled || !store) {
    deps.log.info("recordings: off");
    return null;
  }
  const inbox = recordingDir(config)!;
  const problem = inboxProblem(inbox);
  if (problem) throw new ConfigError(problem);
  const recordings = new Collector({
    log: deps.log,
    store,
    inbox,
    liveIds: deps.liveIds,
    wait: config.recording.wait,
    polling: polling(config.recording.watch, inbox),
    pollMs: config.recording.poll,
    events: deps.events,
    claims: deps.claims,
  });
  deps.log.info(`recordings: on, inbox ${inbox}, ${recordings.polling ? "polling" : "events"}`);
  return recordings;
}
