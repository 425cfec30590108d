// The admin's Files, per workspace: every folder's entries, Clear screenshots and Clear recordings in
// bulk, keep one into Files, and delete a kept file. Admin only: no agent tool deletes anything.
import { Elysia } from "elysia";
import { guarded, requireWorkspace } from "../admin/guard.ts";
import { badInput } from "../errors.ts";
import { json } from "../http/json.ts";
import type { Services } from "../services.ts";
import { FILES_OFF, type Folder, SUBFOLDERS } from "./service.ts";

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

export function filesRoutes(services: Services) {
  const files = services.files;
  const clear = (folder: "screenshots" | "recordings") =>
    guarded(services, async ({ request }: Ctx) => {
      const key = await requireWorkspace(services, segments(request)[0]!);
      return json({ success: true, key, cleared: await files.clear(key, folder) });
    });
  return new Elysia({ name: "admin-files" })
    .get(
      "/admin/workspaces/:key/files",
      guarded(services, async ({ request }: Ctx) => {
        const key = await requireWorkspace(services, segments(request)[0]!);
        const record = await services.store.get(key);
        const [downloads, counts] = await Promise.all([
          files.list(key, "downloads").catch(() => []),
          files.counts(key),
        ]);
        const disk = async (folder: Exclude<Folder, "downloads">) =>
          files.store ? files.list(key, folder) : [];
        const out: Record<string, unknown> = {
          key,
          browser: Boolean(record?.session_id),
          counts,
          files: await disk("files"),
          screenshots: await disk("screenshots"),
          recordings: await disk("recordings"),
          downloads,
        };
        if (!files.store) out.off = FILES_OFF;
        return json(out);
      }),
    )
    .delete("/admin/workspaces/:key/files/screenshots", clear("screenshots"))
    .delete("/admin/workspaces/:key/files/recordings", clear("recordings"))
    .post(
      "/admin/workspaces/:key/files/:folder/:name/keep",
      guarded(services, async ({ request }: Ctx) => {
        const [raw, , folder, name] = segments(request);
        const key = await requireWorkspace(services, raw!);
        if (!(SUBFOLDERS as readonly string[]).includes(folder!)) {
          throw badInput(`keep takes a screenshot, a recording or a download, not a file of ${folder}`);
        }
        const entry = await files.keep(key, `workspace://files/${folder}/${encodeURIComponent(name!)}`);
        return json(entry);
      }),
    )
    .delete(
      "/admin/workspaces/:key/files/:name",
      guarded(services, async ({ request }: Ctx) => {
        const [raw, , name] = segments(request);
        const key = await requireWorkspace(services, raw!);
        await files.deleteKept(key, name!);
        return json({ success: true, key, deleted: name });
      }),
    );
}
