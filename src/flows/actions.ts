// Flows as tools: save one, delete one, run one server-side in a single call.
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import type { ActionServices } from "../actions/ports.ts";
import { badInput, tooLarge } from "../errors.ts";
import { objectBody } from "../http/body.ts";
import { bindFlow } from "./bind.ts";
import { parseFlow } from "./format.ts";
import type { ParsedFlow } from "./lines.ts";
import { FlowRun } from "./report.ts";
import { checkSecrets, runFlow } from "./run.ts";
import { FLOW_CAP, flowFields, flowText, GUIDE_URI, PLACEHOLDER } from "./schema.ts";
import { checkFlowName, flowUri, SAVING_OFF } from "./store.ts";

const FlowName = z
  .string()
  .meta({ docs: "The flow's name: letters, digits, '.', '_' or '-' (login, export-report)." });

const ParamValues = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
  .describe("By name; one left out takes its default.")
  .meta({ docs: "Values for the flow's parameters, by name; a parameter left out takes its default." });

/** PUT /flows/{name}: a JSON body is the flow's fields; a YAML one (the app read its text) is its text. */
function flowBody(body: unknown): Record<string, unknown> {
  if (typeof body === "string") return { yaml: body };
  return objectBody(
    body,
    "the body must be a JSON object: the flow's fields, or send its YAML as application/yaml",
  );
}

async function prepare(
  services: ActionServices,
  workspace: string,
  input: { name: string; params?: Record<string, string | number | boolean> },
) {
  const { parsed } = services.flows.load(workspace, input.name);
  const bound = bindFlow(parsed, input.params ?? {}, services.flows.tools);
  await checkSecrets(services, workspace, parsed, bound);
  return { parsed, bound };
}

export const runFlowAction = defineAction({
  name: "run_flow",
  http: { method: "POST", path: "/flows/{name}/run" },
  title: "Run a flow",
  description: [
    "Run a saved flow (workspace://flows lists them and their params) on this browser in one call.",
    "Returns status and each step; fix a failed step with save_flow, or go on by hand.",
  ].join(" "),
  docs: [
    "Use it for a sequence you have worked out and will repeat (a sign-in, an export). status is ok, failed or timeout; each step in the report has n, tool, ok, ms; url when it moved the page; result when the step says return: true; error when it failed. The url and title are where the run ended.",
    "Before anything runs, an unknown flow is a 404, and a parameter it does not take or one without a default left out is a 400.",
  ].join(" "),
  input: z.strictObject({
    name: FlowName,
    params: ParamValues.optional(),
  }),
  output: FlowRun,
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  browser: "page",
  precheck: async ({ workspace, services }, input) => {
    await prepare(services, workspace, input);
  },
  handler: async (ctx, input) => {
    const { parsed, bound } = await prepare(ctx.services, ctx.workspace, input);
    return runFlow(ctx, parsed.flow, bound, input.name);
  },
});

export const saveFlowAction = defineAction({
  name: "save_flow",
  http: {
    method: "PUT",
    path: "/flows/{name}",
    takes: ["yaml"],
    caps: { yaml: { bytes: FLOW_CAP, what: "flow YAML" } },
    fromBody: flowBody,
    bodies: {
      "application/yaml": { type: "string", description: "The flow as YAML text (at most 1 MiB)." },
    },
  },
  title: "Save a flow",
  description: [
    "Save (or replace) this workspace's flow of that name: steps, each a tool call {tool, args, return?}, for run_flow.",
    `Give yaml or the fields; ${PLACEHOLDER} in an argument takes a param.`,
    `Never put a password in a flow: write with secret. Example: ${GUIDE_URI}.`,
  ].join(" "),
  docs: [
    "run_flow runs the steps server-side in one call. The fields are steps, and optionally description, params (names with defaults), onError (stop or continue) and timeout (seconds).",
    `Invalid YAML, an unknown tool, an argument the tool does not take or a missing one, and an undeclared ${PLACEHOLDER} are refused.`,
    "Over REST, PUT /flows/{name} takes the YAML itself as the body (Content-Type: application/yaml) or the fields as JSON.",
    `${GUIDE_URI} shows a whole sign-in flow.`,
  ].join(" "),
  input: z.strictObject({
    name: FlowName,
    yaml: z.string().optional().describe("The whole flow as YAML; or give its fields.").meta({
      docs: "The whole flow as YAML text (at most 1 MiB). Give this, the flow's fields or from_timeline, one of them.",
    }),
    from_timeline: z
      .strictObject({ last: z.number().int().min(1).max(1000) })
      .optional()
      .describe("Instead of yaml: your last N calls as the steps.")
      .meta({
        docs: "Instead of yaml: the workspace's last N calls (a run_flow's steps with it) become the steps; read-only and failed calls are left out, and an element a call named by ref is named by the locator read for it as the call ran. A description may come with it. The answer carries the YAML saved.",
      }),
    ...flowFields,
    steps: flowFields.steps.optional(),
  }),
  output: z.object({
    name: z.string(),
    replaced: z.boolean().describe("Whether a flow of this name was there before."),
    steps: z.number().int().describe("How many steps it has."),
    params: z.array(z.string()).describe("Its parameters' names."),
    uri: z.string().describe("Where to read it back."),
    yaml: z.string().optional().describe("The YAML saved, when it came from the timeline."),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: true },
  browser: "none",
  handler: async (ctx, input) => {
    const { name: rawName, yaml, from_timeline, ...fields } = input;
    const name = checkFlowName(rawName);
    if (!ctx.services.flows.store.canSave) throw badInput(SAVING_OFF, "data.dir");
    // A description may come with from_timeline: it names the run kept.
    const { description, ...rest } = fields;
    const given = Object.fromEntries(
      Object.entries(from_timeline ? rest : fields).filter(([, v]) => v !== undefined),
    );
    const ways = [yaml !== undefined && "yaml", from_timeline !== undefined && "from_timeline"].filter(
      (w): w is string => typeof w === "string",
    );
    if (ways.length + (Object.keys(given).length > 0 ? 1 : 0) > 1) {
      const all = [
        ...ways,
        ...(Object.keys(given).length ? [`its fields (${Object.keys(given).join(", ")})`] : []),
      ];
      throw badInput(`give the flow one way: ${all.join(" or ")}, not both`, ways[0] ?? "yaml");
    }
    if (ways.length === 0 && Object.keys(given).length === 0) {
      throw badInput(
        "no flow given: send its YAML text as yaml, its fields (steps, …), or from_timeline",
        "steps",
      );
    }
    if (from_timeline) {
      const text = await ctx.services.timeline.flowYaml(ctx.workspace, from_timeline, description);
      return { ...saveFlowText(ctx.services, ctx.workspace, name, text), yaml: text };
    }
    return saveFlowText(ctx.services, ctx.workspace, name, yaml ?? flowText(given));
  },
});

/** Checks and saves a flow's YAML as the workspace's flow `name`; what save_flow answers. */
export function saveFlowText(
  services: Pick<ActionServices, "flows" | "events">,
  workspace: string,
  rawName: string,
  text: string,
) {
  const name = checkFlowName(rawName);
  const flows = services.flows;
  if (!flows.store.canSave) throw badInput(SAVING_OFF, "data.dir");
  if (Buffer.byteLength(text, "utf8") > FLOW_CAP) {
    throw tooLarge(`the flow is over its cap of ${FLOW_CAP} bytes of YAML: make it shorter`);
  }
  const parsed: ParsedFlow = parseFlow(text, flows.tools);
  const { replaced } = flows.store.save(workspace, name, text);
  services.events.changed(workspace);
  return {
    name,
    replaced,
    steps: parsed.flow.steps.length,
    params: Object.keys(parsed.flow.params),
    uri: flowUri(name),
  };
}

export const deleteFlowAction = defineAction({
  name: "delete_flow",
  http: { method: "DELETE", path: "/flows/{name}" },
  title: "Delete a flow",
  description:
    "Delete this workspace's flow of that name; a global flow of that name (every workspace's) then runs under it.",
  docs: "Global flows cannot be deleted here; global: true says one now answers to the name. An unknown name is a 404.",
  input: z.strictObject({ name: FlowName }),
  output: z.object({
    name: z.string(),
    deleted: z.boolean(),
    global: z.boolean().describe("Whether a global flow of this name is what the name runs now."),
  }),
  annotations: { readOnly: false, destructive: true, idempotent: true },
  browser: "none",
  handler: async (ctx, input) => {
    const name = checkFlowName(input.name);
    const { global } = ctx.services.flows.store.remove(ctx.workspace, name);
    ctx.services.events.changed(ctx.workspace);
    return { name, deleted: true, global };
  },
});
