// The capabilities as the admin surfaces see them, listed once: each one's admin routes, the part it
// adds to a workspace's row and the workspace tabs it draws (src/admin/capability.ts). Surfaces read
// this; no capability imports it (a capability builds on src/admin/ and src/http/ instead).
import { Elysia } from "elysia";
import { opRoutes, type PaneTab, type RowOf } from "./admin/capability.ts";
import { requireWorkspace } from "./admin/guard.ts";
import { type BaseRow, rowOf, workspaceKeys } from "./admin/rows.ts";
import { files } from "./files/index.ts";
import { flows } from "./flows/index.ts";
import { person } from "./person/index.ts";
import type { Services } from "./services.ts";
import { siteData } from "./site-data/index.ts";
import { timeline } from "./timeline/index.ts";

/** Every capability, in the order of the workspace page's tabs. */
export const CAPABILITIES = [files, flows, siteData, timeline, person] as const;

type Capabilities = (typeof CAPABILITIES)[number];
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** A workspace's row: its own fields and every capability's, so a misspelt field fails the compiler. */
export type WorkspaceRow = BaseRow & Intersection<RowOf<Capabilities>>;

/** The workspace page's tabs, in order. */
export const TABS: readonly PaneTab<WorkspaceRow, unknown>[] = CAPABILITIES.flatMap(
  (c): readonly PaneTab<WorkspaceRow, unknown>[] => c.tabs ?? [],
);

const ROW_PARTS = CAPABILITIES.map((c) => c.row);

/** Every capability's routes under /admin/workspaces/{key}/…. */
export function capabilityRoutes(services: Services) {
  const app = new Elysia({ name: "admin-capabilities" });
  for (const c of CAPABILITIES) app.use(c.adminRoutes(services)).use(opRoutes(services, c));
  return app;
}

/** One workspace's row. `liveIds` is the Grid's browser list, read once per listing. */
export function workspaceRow(
  services: Services,
  key: string,
  liveIds: Set<string> | null,
): Promise<WorkspaceRow> {
  return rowOf<WorkspaceRow>(ROW_PARTS, services, key, liveIds);
}

export async function workspaceRows(services: Services): Promise<WorkspaceRow[]> {
  const [keys, liveIds] = await Promise.all([workspaceKeys(services), services.grid.sessions()]);
  return Promise.all(keys.map((k) => workspaceRow(services, k, liveIds)));
}

/** One workspace's row, or 404 `no workspace <key>`. */
export async function existingWorkspaceRow(services: Services, key: string): Promise<WorkspaceRow> {
  await requireWorkspace(services, key);
  return workspaceRow(services, key, await services.grid.sessions());
}
