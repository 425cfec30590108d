// The admin's workspace rows, as a kit the capabilities build on: which workspaces exist, the row
// part each capability contributes (its counts and revisions), and a row put together from parts.
// The capabilities themselves are listed in src/registry.ts; no capability imports that list.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/schema.ts";
import type { Grid } from "../grid/webdriver.ts";
import { isWorkspaceName } from "../kit/names.ts";
import { type BrowserSettings, recordUrl, SERVER_RECORD, type WorkspaceRecord } from "../store/record.ts";
import type { RecordStore } from "../store/types.ts";

/** Where the workspaces are: records in the store, and folders under DATA_DIR/sessions. */
export interface WorkspaceLookup {
  readonly store: Pick<RecordStore, "get" | "keys">;
  readonly config: Config;
}

/** What a row part is handed: the services its capability needs (`S`), the workspace, its record. */
export interface RowContext<S = unknown> {
  services: S;
  key: string;
  record: WorkspaceRecord | null;
}

/** A workspace row's own fields; each capability's part adds its counts and revisions (src/registry.ts). */
export type BaseRow = {
  key: string;
  live: boolean;
  url: string | null;
  settings: BrowserSettings;
  recording: boolean;
};

/** What a capability adds to the row; a `counts` object is merged with the other parts' counts. */
export type RowPart<R, S = unknown> = (ctx: RowContext<S>) => R | Promise<R>;

/** Every workspace this server knows: records in the store, and folders under DATA_DIR/sessions. */
export async function workspaceKeys(services: WorkspaceLookup): Promise<string[]> {
  // The server's own record (an admin's secrets for every workspace) is no workspace.
  const keys = new Set((await services.store.keys()).filter((k) => k !== SERVER_RECORD));
  const dir = services.config.data.dir;
  if (dir) {
    const sessions = join(dir, "sessions");
    if (existsSync(sessions)) {
      for (const e of readdirSync(sessions, { withFileTypes: true })) {
        if (e.isDirectory() && isWorkspaceName(e.name)) keys.add(e.name);
      }
    }
  }
  return [...keys].sort();
}

/** One row from `parts`. `liveIds` is the Grid's browser list, read once per listing. */
export async function rowOf<Row extends BaseRow, S>(
  parts: readonly RowPart<object, S>[],
  services: S & { readonly store: Pick<RecordStore, "get">; readonly grid: Pick<Grid, "alive"> },
  key: string,
  liveIds: Set<string> | null,
): Promise<Row> {
  const record = await services.store.get(key);
  const id = record?.session_id ?? "";
  const live = id !== "" && (liveIds ? liveIds.has(id) : await services.grid.alive(id));
  const settings = record?.settings ?? {};
  const row: BaseRow & { counts?: object } = {
    key,
    live,
    url: record ? recordUrl(record) || null : null,
    settings,
    recording: live && settings.record === true,
  };
  for (const part of parts) {
    // Parts share one `counts` object: each adds its own counts to it.
    const { counts, ...fields } = (await part({ services, key, record })) as { counts?: unknown };
    Object.assign(row, fields);
    if (counts) row.counts = { ...row.counts, ...(counts as object) };
  }
  // The parts' fields are all in: the registry's list gives the row its type.
  return row as Row;
}
