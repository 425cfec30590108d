// The admin's workspace rows, as a kit the capabilities build on: which workspaces exist, the row
// part each capability contributes (its counts and revisions), and a row put together from parts.
// The capabilities themselves are listed in src/registry.ts; no capability imports that list.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { isWorkspaceName } from "../kit/names.ts";
import type { Services } from "../services.ts";
import { type BrowserSettings, recordUrl, type WorkspaceRecord } from "../store/record.ts";

export interface RowContext {
  services: Services;
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
export type RowPart<R> = (ctx: RowContext) => R | Promise<R>;

/** Every workspace this server knows: records in the store, and folders under DATA_DIR/sessions. */
export async function workspaceKeys(services: Services): Promise<string[]> {
  const keys = new Set(await services.store.keys());
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

export async function workspaceExists(services: Services, key: string): Promise<boolean> {
  if (!isWorkspaceName(key)) return false;
  if (await services.store.get(key)) return true;
  const dir = services.config.data.dir;
  return dir !== null && existsSync(join(dir, "sessions", key));
}

/** One row from `parts`. `liveIds` is the Grid's browser list, read once per listing. */
export async function rowOf<Row extends BaseRow>(
  parts: readonly RowPart<object>[],
  services: Services,
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
