// Builds files and recordings for the composition root: the data directory (refusing an old
// layout), the signed-link key, and the collector when recording is on (refusing an inbox it
// cannot move files out of). A ConfigError here stops the boot like a bad setting.
import { accessSync, constants, statSync } from "node:fs";
import { RECORDING_NEEDS_DATA, recordingDir } from "../config.ts";
import type { Config } from "../config-schema.ts";
import { ConfigError } from "../config-sources.ts";
import type { Grid } from "../grid/webdriver.ts";
import { log } from "../log.ts";
import { Collector } from "../recordings/collector.ts";
import { polling } from "../recordings/mounts.ts";
import type { RecordStore } from "../store/types.ts";
import { Leases } from "../workspaces/lock.ts";
import { checkLayout, dataDirOf } from "./layout.ts";
import { LinkSigner, linkKey } from "./links.ts";
import { Files } from "./service.ts";
import { FileStore } from "./store.ts";

export interface FilesSetup {
  files: Files;
  /** Null when recording is off. */
  recordings: Collector | null;
}

export function inboxProblem(inbox: string): string | null {
  try {
    if (!statSync(inbox).isDirectory()) throw new Error("not a folder");
    accessSync(inbox, constants.R_OK | constants.W_OK | constants.X_OK);
    return null;
  } catch {
    return `recording.dir ${inbox} must exist and be readable and writable by this server: filing a recording moves it out`;
  }
}

export function setupFiles(
  config: Config,
  deps: { grid: Grid; records: RecordStore; now: () => number; changed: (workspace: string) => void },
): FilesSetup {
  const dataDir = dataDirOf(config);
  if (dataDir) checkLayout(dataDir);
  if (config.recording.enabled && !dataDir) throw new ConfigError(RECORDING_NEEDS_DATA);
  const store = dataDir ? new FileStore(dataDir) : null;
  log.info(store ? `flows: local, under ${store.sessionsDir}` : "flows: off (set data.dir to enable them)");
  const files = new Files({
    store,
    links: new LinkSigner(linkKey(dataDir), config.files.link_ttl, deps.now),
    grid: deps.grid,
    records: deps.records,
    now: deps.now,
    changed: deps.changed,
  });
  if (!config.recording.enabled || !store) {
    log.info("recordings: off");
    return { files, recordings: null };
  }
  const inbox = recordingDir(config)!;
  const problem = inboxProblem(inbox);
  if (problem) throw new ConfigError(problem);
  const recordings = new Collector({
    store,
    inbox,
    liveIds: () => deps.grid.sessions(),
    wait: config.recording.wait,
    polling: polling(config.recording.watch, inbox),
    pollMs: config.recording.poll,
    onFiled: deps.changed,
    // Each recording is filed once across a group: by whichever server claims it in the store.
    claims: new Leases(deps.records, config.session.lease * 1000),
  });
  log.info(`recordings: on, inbox ${inbox}, ${recordings.polling ? "polling" : "events"}`);
  return { files, recordings };
}
