// The saved flows as resources: the list, and one flow with its YAML.
import { z } from "zod";
import { defineResource } from "../actions/resource.ts";
import { messageOf, notFound } from "../errors.ts";
import { GUIDE_URI } from "./schema.ts";
import type { Flows } from "./service.ts";
import { checkFlowName, listedAt } from "./store.ts";

const Param = z.object({
  default: z
    .union([z.string(), z.number(), z.boolean()])
    .optional()
    .describe("Absent: the run must pass it."),
  description: z.string().optional(),
});

const Summary = z.object({
  name: z.string(),
  source: z
    .enum(["workspace", "global"])
    .describe(
      "workspace: saved here (save_flow, delete_flow); global: shared by every workspace, read-only.",
    ),
  description: z.string(),
  params: z.record(z.string(), Param),
  steps: z.number().int().describe("How many steps it has."),
  tools: z.array(z.string()).describe("The tool each step calls, in order."),
  uri: z.string().describe("Where to read it whole."),
  problem: z.string().optional().describe("Why it cannot run as written; save it again fixed."),
});

export const FlowList = z.object({
  flows: z.array(Summary),
  saving: z.boolean().describe("Whether save_flow can keep flows here (the server has a data directory)."),
  guide: z.string().describe("How to write a flow."),
});

export const FlowDetail = z.object({
  name: z.string(),
  source: z.enum(["workspace", "global"]),
  description: z.string(),
  params: z.record(z.string(), Param),
  steps: z.array(
    z.object({ tool: z.string(), args: z.record(z.string(), z.unknown()), return: z.boolean() }),
  ),
  onError: z.enum(["stop", "continue"]),
  timeout: z.number().describe("Seconds the whole run may take."),
  yaml: z.string().describe("The flow as saved: send it back to save_flow changed."),
  problem: z.string().optional().describe("Why it cannot run as written."),
});

export const flowList = defineResource<{ readonly flows: Flows }>({
  uri: "workspace://flows",
  name: "flows",
  title: "Flows",
  description: `The flows this workspace can run with run_flow: its own and the global ones, each with its description, parameters (and defaults) and the tools its steps call. How to write one: ${GUIDE_URI}.`,
  http: "/flows",
  output: FlowList,
  read: async (services, workspace) => {
    services.flows.requireEnabled();
    return {
      flows: services.flows.summaries(workspace),
      saving: services.flows.store.canSave,
      guide: GUIDE_URI,
    };
  },
});

export const flowOne = defineResource<{ readonly flows: Flows }>({
  uri: "workspace://flows/{name}",
  name: "flow",
  title: "One flow",
  description:
    "One flow whole: its description, params, steps, onError, timeout and its YAML as saved. A flow that no longer checks says why in problem.",
  http: "/flows/{name}",
  output: FlowDetail,
  read: async (services, workspace, params) => {
    services.flows.requireEnabled();
    const name = checkFlowName(params.name ?? "");
    const file = services.flows.store.read(workspace, name);
    if (!file) throw notFound(`no flow ${name}: ${listedAt}`);
    try {
      const { flow } = services.flows.check(file);
      return { name, source: file.source, ...flow, yaml: file.text };
    } catch (err) {
      return {
        name,
        source: file.source,
        description: "",
        params: {},
        steps: [],
        onError: "stop",
        timeout: 0,
        yaml: file.text,
        problem: messageOf(err),
      };
    }
  },
});
