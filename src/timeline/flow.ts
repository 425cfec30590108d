// Keeping a run as a flow: timeline entries become a flow's steps. A step is a call that worked and
// changed something; read-only calls are left out unless they returned (a flow step that said
// `return: true`), and so are the flow tools and calls whose arguments were cut.
import type { FlowStep } from "../flows/schema.ts";
import type { ToolTable } from "../flows/tools.ts";
import type { TimelineEntry } from "./entry.ts";

/** A literal `${` in an argument, written so a flow does not read it as a parameter. */
function literal(value: unknown): unknown {
  if (typeof value === "string") return value.replaceAll("${", () => "$${");
  if (Array.isArray(value)) return value.map(literal);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, literal(v)]));
  }
  return value;
}

/** Whether an entry becomes a step. */
export function isStep(entry: TimelineEntry, tools: ToolTable): boolean {
  if (entry.status !== 200 || entry.args_cut) return false;
  const action = tools.get(entry.tool);
  if (!action) return false;
  return !action.annotations.readOnly || entry.return === true;
}

/** The steps a run (its entries, oldest first) makes. */
export function stepsOf(entries: readonly TimelineEntry[], tools: ToolTable): FlowStep[] {
  return entries
    .filter((e) => isStep(e, tools))
    .map((e) => ({
      tool: e.tool,
      args: literal(e.args) as Record<string, unknown>,
      return: e.return === true,
    }));
}

/** The flow's fields as save_flow's JSON form takes them (no `return: false` written out). */
export function flowFieldsOf(
  entries: readonly TimelineEntry[],
  tools: ToolTable,
): { description: string; steps: Array<Record<string, unknown>> } {
  const first = entries[0]?.n;
  const last = entries[entries.length - 1]?.n;
  return {
    description:
      first === last ? `From the timeline: #${first}.` : `From the timeline: #${first} to #${last}.`,
    steps: stepsOf(entries, tools).map((s) =>
      s.return ? { tool: s.tool, args: s.args, return: true } : { tool: s.tool, args: s.args },
    ),
  };
}
