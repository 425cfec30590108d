// The capabilities, listed once: each one's descriptor (src/admin/capability.ts) hands its services,
// its actions, its resources, its admin routes and its own, the part it adds to a workspace's row and
// the workspace tabs it draws. The services the composition root builds, the action table (MCP's
// tools, REST, OpenAPI, the docs, flow steps), the resource table, the routers, the row and the UI's
// tabs all come from this list. Surfaces and the composition root read it; no capability imports it.
import { Elysia } from "elysia";
import type { AnyAction } from "./actions/action.ts";
import type { Subscriber } from "./actions/call.ts";
import type { ResourceDef } from "./actions/resource.ts";
import { type BuildNeeds, type BuiltOf, opRoutes, type PaneTab, type RowOf } from "./admin/capability.ts";
import { requireWorkspace } from "./admin/guard.ts";
import { type BaseRow, type RowPart, rowOf, workspaceKeys } from "./admin/rows.ts";
import { browser } from "./browser/index.ts";
import { files } from "./files/index.ts";
import { flows } from "./flows/index.ts";
import { person } from "./person/index.ts";
import { workspace } from "./resources/index.ts";
import { secrets } from "./secrets/index.ts";
import type { Services } from "./services.ts";
import { siteData } from "./site-data/index.ts";
import { timeline } from "./timeline/index.ts";

/** Every capability, one line each; the workspace page's tabs are in this order. */
export const CAPABILITIES = [files, flows, siteData, timeline, person, browser, secrets, workspace] as const;

/**
 * The order tools/list, the docs and OpenAPI have always shown (and the resources'): what is named
 * here comes first, in this order; anything else follows in the list's order above. A new action
 * needs no line here.
 */
export const TOOL_ORDER = [
  "open_session",
  "end_browser",
  "navigate",
  "interact",
  "write",
  "extract",
  "read_page",
  "logs",
  "execute_script",
  "assert",
  "save_site_data",
  "dialog",
  "switch",
  "run_flow",
  "save_flow",
  "delete_flow",
  "screenshot",
  "print_page",
];
export const RESOURCE_ORDER = [
  "workspace://current",
  "workspace://site-data",
  "workspace://site-data/{site}",
  "workspace://secrets",
  "workspace://flows",
  "workspace://flows/{name}",
];

/** `items` with those `order` names first, in that order; the rest after, as they were (a stable sort). */
function ordered<T>(items: readonly T[], nameOf: (item: T) => string, order: readonly string[]): T[] {
  const rank = (item: T) => {
    const i = order.indexOf(nameOf(item));
    return i < 0 ? order.length : i;
  };
  return [...items].sort((a, b) => rank(a) - rank(b));
}

/** The action table: every action, once. Surfaces, OpenAPI, the docs and flows are built from it. */
export const ACTIONS: readonly AnyAction[] = ordered(
  CAPABILITIES.flatMap((c): readonly AnyAction[] => c.actions ?? []),
  (a) => a.name,
  TOOL_ORDER,
);

/** The resource table: every read-only view, once (MCP resources, REST GETs, OpenAPI). */
export const RESOURCES: readonly ResourceDef<Services>[] = ordered(
  CAPABILITIES.flatMap((c): readonly ResourceDef<Services>[] => c.resources ?? []),
  (r) => r.uri,
  RESOURCE_ORDER,
);

type Capabilities = (typeof CAPABILITIES)[number];
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** A workspace's row: its own fields and every capability's, so a misspelt field fails the compiler. */
export type WorkspaceRow = BaseRow & Intersection<RowOf<Capabilities>>;

/** What the capabilities build, one set (each one's `build`). */
export type Built = Intersection<BuiltOf<Capabilities>>;

/** Every capability's services, built from the server's parts in the list's order. */
export function buildCapabilities(parts: BuildNeeds): Built {
  return Object.assign({}, ...CAPABILITIES.map((c) => c.build?.(parts) ?? {}));
}

/** The workspace page's tabs, in order. */
export const TABS: readonly PaneTab<WorkspaceRow, unknown, Services>[] = CAPABILITIES.flatMap(
  (c): readonly PaneTab<WorkspaceRow, unknown, Services>[] => c.tabs ?? [],
);

const ROW_PARTS = CAPABILITIES.flatMap((c): readonly RowPart<object, Services>[] => (c.row ? [c.row] : []));

/** Every capability's routes under /admin/workspaces/{key}/…. */
export function capabilityRoutes(services: Services) {
  const app = new Elysia({ name: "admin-capabilities" });
  for (const c of CAPABILITIES)
    if (c.adminRoutes) app.use(c.adminRoutes(services)).use(opRoutes(services, c));
  return app;
}

/** Who of the capabilities hears every call, in the list's order. */
export function capabilitySubscribers(services: Services): Subscriber[] {
  return CAPABILITIES.flatMap((c) => (c.hears ? [c.hears(services)] : []));
}

/** Every capability's own routes (outside /admin/workspaces/{key}/…). */
export function ownRoutes(services: Services) {
  const app = new Elysia({ name: "capabilities-own" });
  for (const c of CAPABILITIES) if (c.routes) app.use(c.routes(services));
  return app;
}

/** One workspace's row. `liveIds` is the Grid's browser list, read once per listing. */
export function workspaceRow(
  services: Services,
  key: string,
  liveIds: Set<string> | null,
): Promise<WorkspaceRow> {
  return rowOf<WorkspaceRow, Services>(ROW_PARTS, services, key, liveIds);
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
