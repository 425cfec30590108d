// The admin's Flows: the flows a workspace can run (its own and the global ones), one flow whole,
// (the row's flows_rev and counts.flows are row.ts). Agents save and delete flows; the
// admin reads them.
import { Elysia } from "elysia";
import { z } from "zod";
import {
  type AdminNeeds,
  adminGuard,
  onWorkspaceRoute,
  requireWorkspace,
  WorkspaceParams,
} from "../admin/guard.ts";
import { json } from "../http/json.ts";
import type { Log } from "../log.ts";
import { flowOne } from "./resources.ts";
import type { Flows } from "./service.ts";

/** What the flows capability's admin code, row part and resources are handed: its service, the log. */
export interface FlowsNeeds extends AdminNeeds {
  readonly flows: Flows;
  readonly log: Log;
}

/** The Flows pane: `{enabled, saving, flows, rev, workspace}`. */
export function flowsPane(services: FlowsNeeds, key: string) {
  const { store } = services.flows;
  if (!store.enabled) return { enabled: false, saving: false, flows: [], rev: "", workspace: key };
  const entries = new Map(store.list(key).map((e) => [e.name, e]));
  const flows = services.flows.summaries(key).map((s) => {
    const e = entries.get(s.name);
    return { ...s, size: e?.size ?? 0, modified: e?.modified ?? 0 };
  });
  return { enabled: true, saving: store.canSave, flows, rev: store.rev(key), workspace: key };
}

export function flowsRoutes(services: FlowsNeeds) {
  return new Elysia({ name: "admin-flows" })
    .use(adminGuard(services))
    .get(
      "/admin/workspaces/:key/flows",
      async ({ params }) => json(flowsPane(services, await requireWorkspace(services, params.key))),
      onWorkspaceRoute(),
    )
    .get(
      "/admin/workspaces/:key/flows/:name",
      async ({ params }) => {
        const key = await requireWorkspace(services, params.key);
        return json(await flowOne.read(services, key, { name: params.name }));
      },
      { admin: true, params: WorkspaceParams.extend({ name: z.string() }) },
    );
}
