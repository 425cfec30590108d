// The capabilities as the admin surfaces see them, assembled in one place: each capability's admin
// routes and the part it adds to a workspace's row. Surfaces read this; no capability imports it
// (a capability builds on src/admin/ and src/http/ instead).
import { Elysia } from "elysia";
import { requireWorkspace } from "./admin/guard.ts";
import { type RowPart, rowOf, type WorkspaceRow, workspaceKeys } from "./admin/rows.ts";
import { filesRoutes } from "./files/admin.ts";
import { filesPart } from "./files/row.ts";
import { flowsRoutes } from "./flows/admin.ts";
import { flowsPart } from "./flows/row.ts";
import { personRoutes } from "./person/admin.ts";
import { personPart } from "./person/row.ts";
import type { Services } from "./services.ts";
import { siteDataRoutes } from "./site-data/admin.ts";
import { historyPart, secretsPart, siteDataPart } from "./site-data/rows.ts";
import { timelineRoutes } from "./timeline/routes.ts";
import { timelinePart } from "./timeline/row.ts";

export { workspaceExists } from "./admin/rows.ts";

/** The row's parts, in the order their fields appear. */
export const ROW_PARTS: readonly RowPart[] = [
  historyPart,
  siteDataPart,
  secretsPart,
  flowsPart,
  filesPart,
  timelinePart,
  personPart,
];

/** Every capability's routes under /admin/workspaces/{key}/…. */
export function capabilityRoutes(services: Services) {
  return new Elysia({ name: "admin-capabilities" })
    .use(filesRoutes(services))
    .use(siteDataRoutes(services))
    .use(flowsRoutes(services))
    .use(timelineRoutes(services))
    .use(personRoutes(services));
}

/** One workspace's row. `liveIds` is the Grid's browser list, read once per listing. */
export function workspaceRow(
  services: Services,
  key: string,
  liveIds: Set<string> | null,
): Promise<WorkspaceRow> {
  return rowOf(ROW_PARTS, services, key, liveIds);
}

export async function workspaceRows(services: Services): Promise<WorkspaceRow[]> {
  const [keys, liveIds] = await Promise.all([workspaceKeys(services), services.grid.sessions()]);
  return Promise.all(keys.map((k) => workspaceRow(services, k, liveIds)));
}

/** One workspace's row, or 404 `no workspace <key>`. */
export async function workspaceView(services: Services, key: string): Promise<WorkspaceRow> {
  await requireWorkspace(services, key);
  return workspaceRow(services, key, await services.grid.sessions());
}
