// What an action or a surface may use. Built once in app.ts; tests build their own.
import type { Config } from "./config.ts";
import type { Grid } from "./grid/webdriver.ts";
import type { RecordStore } from "./store/types.ts";
import type { WorkspaceManager } from "./workspaces/manager.ts";

export interface Services {
  readonly config: Config;
  readonly store: RecordStore;
  readonly grid: Grid;
  readonly workspaces: WorkspaceManager;
  /** Epoch seconds; injectable for tests. */
  readonly now: () => number;
}
