// The admin's Files, per workspace: every folder's entries, Clear screenshots and Clear recordings in
// bulk, keep one into Files, and delete a kept file. Admin only: no agent tool deletes anything.
// The JSON routes and the admin pages both call these.
import { Elysia } from "elysia";
import { type AdminNeeds, adminGuard, onWorkspace, onWorkspaceRoute } from "../admin/guard.ts";
import { badInput } from "../errors.ts";
import type { Log } from "../log.ts";
import type { Files } from "./service.ts";
import { FILES_OFF, type Folder, SUBFOLDERS } from "./uris.ts";

/** What the files capability's admin code, row part, resources and links are handed: its service. */
export interface FilesNeeds extends AdminNeeds {
  readonly files: Files;
  readonly log: Log;
}

/** The Files pane: each folder's entries, their counts, and whether a browser is open. */
export async function filesListing(services: FilesNeeds, key: string) {
  const files = services.files;
  const record = await services.store.get(key);
  const [downloads, counts] = await Promise.all([
    files.list(key, "downloads").catch(() => []),
    files.counts(key),
  ]);
  const disk = async (folder: Exclude<Folder, "downloads">) => (files.store ? files.list(key, folder) : []);
  const out = {
    key,
    browser: Boolean(record?.session_id),
    counts,
    files: await disk("files"),
    screenshots: await disk("screenshots"),
    recordings: await disk("recordings"),
    downloads,
  };
  return files.store ? out : { ...out, off: FILES_OFF };
}

export async function clearFolder(services: FilesNeeds, key: string, folder: "screenshots" | "recordings") {
  return { success: true, key, cleared: await services.files.clear(key, folder) };
}

/** Keep a screenshot, a recording or a download into Files. */
export function keepFile(services: FilesNeeds, key: string, folder: string, name: string) {
  if (!(SUBFOLDERS as readonly string[]).includes(folder)) {
    throw badInput(`keep takes a screenshot, a recording or a download, not a file of ${folder}`);
  }
  return services.files.keep(key, `workspace://files/${folder}/${encodeURIComponent(name)}`);
}

export async function deleteKept(services: FilesNeeds, key: string, name: string) {
  await services.files.deleteKept(key, name);
  return { success: true, key, deleted: name };
}

export function filesRoutes(services: FilesNeeds) {
  const on = (fn: (key: string) => unknown) => onWorkspace(services, fn);
  return new Elysia({ name: "admin-files" }).use(adminGuard(services)).get(
    "/admin/workspaces/:key/files",
    on((key) => filesListing(services, key)),
    onWorkspaceRoute(),
  );
}
