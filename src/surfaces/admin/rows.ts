// The admin's workspace rows. Each capability contributes its fields (counts and revisions) through
// a row part; a page repaints a pane only when that pane's revision changes.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { filesPart } from "../../files/row.ts";
import { flowsPart } from "../../flows/row.ts";
import { isWorkspaceName } from "../../names.ts";
import { secretsPart, siteDataPart } from "../../site-data/rows.ts";
import { hostOf, recordUrl, type WorkspaceRecord } from "../../store/record.ts";
import { timelinePart } from "../../timeline/row.ts";
import type { ServerServices as Services } from "../services.ts";

export interface RowContext {
  services: Services;
  key: string;
  record: WorkspaceRecord | null;
}

export type RowPart = (ctx: RowContext) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** History fields: distinct hosts, and a revision over every entry's origin and URL (not the clock). */
export const historyPart: RowPart = ({ record }) => {
  const history = record?.history ?? [];
  return {
    history_count: new Set(history.map((v) => hostOf(v.origin))).size,
    history_rev: JSON.stringify(history.map((v) => [v.origin, v.url])),
  };
};

// Capabilities add their parts here (site data, files, flows, secrets, timeline).
const PARTS: RowPart[] = [historyPart, siteDataPart, secretsPart, flowsPart, filesPart, timelinePart];

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

/** One row. `liveIds` is the Grid's browser list, read once per listing. */
export async function workspaceRow(
  services: Services,
  key: string,
  liveIds: Set<string> | null,
): Promise<Record<string, unknown>> {
  const record = await services.store.get(key);
  const id = record?.session_id ?? "";
  const live = id !== "" && (liveIds ? liveIds.has(id) : await services.grid.alive(id));
  const settings = record?.settings ?? {};
  const row: Record<string, unknown> = {
    key,
    live,
    url: record ? recordUrl(record) || null : null,
    settings,
    recording: live && settings.record === true,
  };
  for (const part of PARTS) {
    // Parts share one `counts` object: each adds its own counts to it.
    const { counts, ...fields } = await part({ services, key, record });
    Object.assign(row, fields);
    if (counts) row.counts = { ...(row.counts as object | undefined), ...(counts as object) };
  }
  return row;
}

export async function workspaceRows(services: Services): Promise<Record<string, unknown>[]> {
  const [keys, liveIds] = await Promise.all([workspaceKeys(services), services.grid.sessions()]);
  return Promise.all(keys.map((k) => workspaceRow(services, k, liveIds)));
}
