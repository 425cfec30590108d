// Builds files for the composition root: the data directory (refusing an old layout), the file
// store under it and the signed-link key. A ConfigError here stops the boot like a bad setting.
import { mkdirSync } from "node:fs";
import type { Config } from "../config/schema.ts";
import type { Grid } from "../grid/webdriver.ts";
import type { Log } from "../log.ts";
import type { RecordStore } from "../store/types.ts";
import { checkLayout, dataDirOf } from "./layout.ts";
import { LinkSigner, linkKey } from "./links.ts";
import { Files } from "./service.ts";
import { FileStore } from "./store.ts";

export interface FilesSetup {
  files: Files;
  /** The data dir's file store; null without a data dir. */
  store: FileStore | null;
}

export function setupFiles(
  config: Config,
  deps: {
    grid: Grid;
    records: RecordStore;
    now: () => number;
    changed: (workspace: string) => void;
    log: Log;
  },
): FilesSetup {
  const dataDir = dataDirOf(config);
  // Made when missing, owner-only, whatever keeps the records (SQLite makes it too; Redis does not).
  if (dataDir) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (dataDir) checkLayout(dataDir);
  const store = dataDir ? new FileStore(dataDir) : null;
  deps.log.info(
    store ? `flows: local, under ${store.sessionsDir}` : "flows: off (set data.dir to enable them)",
  );
  const files = new Files({
    store,
    links: new LinkSigner(linkKey(dataDir), config.files.link_ttl, deps.now),
    grid: deps.grid,
    records: deps.records,
    now: deps.now,
    changed: deps.changed,
    log: deps.log,
  });
  return { files, store };
}
