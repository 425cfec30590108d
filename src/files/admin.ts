// The admin's Files, per workspace: every folder's entries, Clear screenshots and Clear recordings in
// bulk, keep one into Files, and delete a kept file. Admin only: no agent tool deletes anything.
// The JSON routes and the admin pages both call these.
import { Elysia } from "elysia";
import { guarded, requireWorkspace } from "../admin/guard.ts";
import { badInput } from "../errors.ts";
import { json } from "../http/json.ts";
import type { Services } from "../services.ts";
import { FILES_OFF, type Folder, SUBFOLDERS } from "./uris.ts";

type Ctx = { request: Request; params: Record<string, string> };

/** The path's segments after /admin/workspaces/, decoded once (names may hold spaces, `%`, `(1)`). */
function segments(request: Request): string[] {
  const path = new URL(request.url).pathname.slice("/admin/workspaces/".length);
  return path.split("/").map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw badInput("the path is not valid percent-encoding");
    }
  });
}

/** The Files pane: each folder's entries, their counts, and whether a browser is open. */
export async function filesListing(services: Services, key: string) {
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

export async function clearFolder(services: Services, key: string, folder: "screenshots" | "recordings") {
  return { success: true, key, cleared: await services.files.clear(key, folder) };
}

/** Keep a screenshot, a recording or a download into Files. */
export function keepFile(services: Services, key: string, folder: string, name: string) {
  if (!(SUBFOLDERS as readonly string[]).includes(folder)) {
    throw badInput(`keep takes a screenshot, a recording or a download, not a file of ${folder}`);
  }
  return services.files.keep(key, `workspace://files/${folder}/${encodeURIComponent(name)}`);
}

export async function deleteKept(services: Services, key: string, name: string) {
  await services.files.deleteKept(key, name);
  return { success: true, key, deleted: name };
}

export function filesRoutes(services: Services) {
  /** A route on one workspace: 404 unless it exists, then `fn`'s answer (given the path's segments) as JSON. */
  const on = (fn: (key: string, parts: string[]) => Promise<unknown>) =>
    guarded(services, async ({ request }: Ctx) => {
      const parts = segments(request);
      return json(await fn(await requireWorkspace(services, parts[0]!), parts));
    });
  return new Elysia({ name: "admin-files" })
    .get(
      "/admin/workspaces/:key/files",
      on((key) => filesListing(services, key)),
    )
    .delete(
      "/admin/workspaces/:key/files/screenshots",
      on((key) => clearFolder(services, key, "screenshots")),
    )
    .delete(
      "/admin/workspaces/:key/files/recordings",
      on((key) => clearFolder(services, key, "recordings")),
    )
    .post(
      "/admin/workspaces/:key/files/:folder/:name/keep",
      on((key, [, , folder, name]) => keepFile(services, key, folder!, name!)),
    )
    .delete(
      "/admin/workspaces/:key/files/:name",
      on((key, [, , name]) => deleteKept(services, key, name!)),
    );
}
