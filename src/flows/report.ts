// What a flow run answers: each step's report and the run's, declared once (run.ts types its reports
// from these; run_flow's output schema is FlowRun).
import { z } from "zod";
import { PageReport } from "../actions/fields.ts";
import { SiteDataHint } from "../store/shapes.ts";

export const StepResult = z.object({
  n: z.number().int().describe("The step's number, from 1."),
  tool: z.string(),
  ok: z.boolean(),
  url: z
    .string()
    .optional()
    .describe("Where the step took the page: only when it moved the page and the page is safe to show."),
  result: z.unknown().optional().describe("The step's result, when the step says return: true."),
  error: z.string().optional().describe("What the tool said when the step failed."),
  ms: z.number().int().describe("How long the step took."),
});

export const FlowRun = z.object({
  status: z
    .enum(["ok", "failed", "timeout"])
    .describe(
      "ok: every step succeeded. failed: a step failed (the run stopped there unless the flow says onError: continue). timeout: the flow's timeout ran out.",
    ),
  steps: z.array(StepResult).describe("Each step that ran, in order."),
  url: z.string().describe("The page's URL after the run."),
  url_redacted: z
    .boolean()
    .optional()
    .describe(
      "true when the page's URL carries what a secret typed: it reads [hidden] there and is recorded nowhere.",
    ),
  title: z.string().describe("The page's title after the run."),
  site_data: SiteDataHint.optional(),
  page: PageReport.optional(),
});

export type StepReport = z.infer<typeof StepResult>;
export type RunReport = z.infer<typeof FlowRun>;
