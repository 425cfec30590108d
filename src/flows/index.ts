// The flows capability as the registry lists it: its actions and resources, its admin routes, its row
// part, and the Flows tab.

import { capability, tabsOver } from "../admin/capability.ts";
import { errorBody, statusOf } from "../errors.ts";
import { deleteFlowAction, runFlowAction, saveFlowAction } from "./actions.ts";
import { type FlowsNeeds, flowsPane, flowsRoutes } from "./admin.ts";
import { flowList, flowOne } from "./resources.ts";
import { flowsPart } from "./row.ts";
import { Flows } from "./service.ts";
import { type FlowEntry, FlowsPane } from "./view.tsx";

/** The Flows pane's listing, each flow with its YAML (the listing has none: read one by one). */
async function flowsWithYaml(services: FlowsNeeds, key: string) {
  const listed = flowsPane(services, key);
  const flows = listed.flows.map(
    (f): FlowEntry => ({
      name: f.name,
      description: f.description,
      global: f.source === "global",
      steps: f.steps,
      problem: f.problem,
    }),
  );
  await Promise.all(
    flows.slice(0, 100).map(async (f) => {
      try {
        const b = (await flowOne.read(services, key, { name: f.name })) as Record<string, unknown>;
        if (typeof b.problem === "string") f.problem ??= b.problem;
        f.yaml = typeof b.yaml === "string" ? b.yaml : JSON.stringify(b, null, 2);
      } catch (err) {
        // The flow's own error in its place, the pane still drawn; a fault logged as the API would.
        f.error = errorBody(err).error;
        if (statusOf(err) >= 500) services.log.error(`request failed: ${f.error}`);
      }
    }),
  );
  return { enabled: listed.enabled, flows };
}

const tab = tabsOver(flowsPart);

export const flows = capability({
  name: "flows",
  build: ({ config, actions }) => ({ flows: new Flows(config, actions) }),
  actions: [runFlowAction, saveFlowAction, deleteFlowAction],
  resources: [flowList, flowOne],
  adminRoutes: flowsRoutes,
  row: flowsPart,
  tabs: [
    tab({
      slug: "flows",
      label: "Flows",
      revFields: ["flows_rev"],
      opens: true,
      load: flowsWithYaml,
      render: ({ workspace, data, rev, open }) => FlowsPane({ workspace, data, rev, open }),
      ops: [],
    }),
  ],
});

// What a handler gets of this capability.
declare module "../actions/ports.ts" {
  interface ActionServices {
    /** Saved flows and the tools their steps may call. */
    readonly flows: Pick<Flows, "load" | "tools" | "store">;
  }
}
