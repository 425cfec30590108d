// The flow's schema: its YAML fields (save_flow's JSON form too), their limits, and the types a
// parsed flow has.
import { stringify } from "yaml";
import { z } from "zod";

export const FLOW_CAP = 1024 * 1024;
export const MAX_STEPS = 1000;
export const MAX_PARAMS = 100;
export const DEFAULT_TIMEOUT = 300;
export const MAX_TIMEOUT = 3600;
export const GUIDE_URI = "skill://selenium-flow/references/FLOWS.md";

// biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder syntax itself, for descriptions
export const PLACEHOLDER = "${name}";

export type ParamValue = string | number | boolean;

export interface FlowParam {
  /** Absent: the run must pass the parameter. */
  default?: ParamValue;
  description?: string;
}

export interface FlowStep {
  tool: string;
  args: Record<string, unknown>;
  return: boolean;
}

export interface Flow {
  description: string;
  params: Record<string, FlowParam>;
  steps: FlowStep[];
  onError: "stop" | "continue";
  /** Seconds the whole run may take. */
  timeout: number;
}

const Scalar = z.union([z.string(), z.number(), z.boolean()]);

export const ParamSpec = z
  .union([
    Scalar,
    z.null(),
    z.strictObject({
      default: Scalar.optional().describe("The value when the run does not pass one."),
      description: z.string().max(500).optional(),
    }),
  ])
  .describe("The parameter's default; null when the run must pass it; or {default, description}.")
  // Shared: tools/list shows this line, not the union in full.
  .meta({ shared: true });

export const StepSpec = z.strictObject({
  tool: z.string().meta({ docs: "The tool to call: any tool but run_flow, save_flow and delete_flow." }),
  args: z
    .record(z.string(), z.unknown())
    .nullable()
    .optional()
    .describe("As the tool takes them.")
    .meta({
      docs: `Its arguments, exactly as the tool takes them (interact takes its action here). ${PLACEHOLDER} in any string is replaced by that parameter; $\${ writes a literal \${.`,
    }),
  return: z.boolean().optional().describe("Put the step's result in the run report."),
});

/** The flow's fields: the YAML document's keys, and save_flow's JSON form. */
export const flowFields = {
  description: z.string().max(2000).optional().meta({ docs: "What the flow does, for whoever lists flows." }),
  params: z
    .record(z.string(), ParamSpec)
    .nullable()
    .optional()
    .describe("Names and defaults.")
    .meta({ docs: "Parameter names (letters, digits, _) and their defaults." }),
  steps: z.array(StepSpec).min(1).max(MAX_STEPS).describe("The calls to make, in order."),
  onError: z
    .enum(["stop", "continue"])
    .optional()
    .describe("After a failed step; default stop.")
    .meta({ docs: "stop (the default): a failed step ends the run; continue: go on to the next step." }),
  timeout: z
    .number()
    .positive()
    .max(MAX_TIMEOUT)
    .optional()
    .describe(`Seconds the whole run may take (default ${DEFAULT_TIMEOUT}).`),
};

export const FlowSpec = z.strictObject(flowFields);

/** The YAML a flow given as fields (save_flow's JSON form) is stored as. */
export function flowText(fields: Record<string, unknown>): string {
  return stringify(fields, { lineWidth: 0 });
}
