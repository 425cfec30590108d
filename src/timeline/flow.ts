// Keeping a run as a flow: timeline entries become a flow's steps. A step is a call that worked and
// changed something; read-only calls are left out unless they returned (a flow step that said
// `return: true`), and so are the flow tools and calls whose arguments were cut. An element a call
// named by ref is named in the step by the locator its entry kept (a ref dies with its page).
import { badInput } from "../errors.ts";
import type { FlowStep } from "../flows/schema.ts";
import type { ToolTable } from "../flows/tools.ts";
import { isObject } from "../kit/json.ts";
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

/** The same JSON whatever order its keys came in (the caller's, or as the call read them). */
function canonical(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : isObject(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted(v[k])]),
          )
        : v;
  return JSON.stringify(sorted(value));
}

/** A selector that names its element through a ref (`{ref}`, or text `within` a ref). */
const holdsRef = (v: Record<string, unknown>) =>
  typeof v.ref === "string" || (isObject(v.within) && typeof v.within.ref === "string");

/**
 * The entry's arguments with each selector that held a ref replaced by the locator the call read
 * for its element; `missing` lists those it has none for.
 */
function withLocators(entry: TimelineEntry): { args: Record<string, unknown>; missing: unknown[] } {
  const kept = new Map((entry.locators ?? []).map((l) => [canonical(l.selector), l.locator]));
  const missing: unknown[] = [];
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!isObject(v)) return v;
    if (holdsRef(v)) {
      const locator = kept.get(canonical(v));
      if (locator) return { ...locator };
      missing.push(v);
      return v;
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
  };
  return { args: walk(entry.args) as Record<string, unknown>, missing };
}

/** Whether an entry becomes a step. */
export function isStep(entry: TimelineEntry, tools: ToolTable): boolean {
  if (entry.status !== 200 || entry.args_cut) return false;
  const action = tools.get(entry.tool);
  if (!action) return false;
  return !action.annotations.readOnly || entry.return === true;
}

/**
 * The steps a run (its entries, oldest first) makes, each element its call named by ref named by
 * the locator read for it; a 400 naming the first step whose element has none.
 */
export function stepsOf(entries: readonly TimelineEntry[], tools: ToolTable): FlowStep[] {
  return entries
    .filter((e) => isStep(e, tools))
    .map((e, i) => {
      const { args, missing } = withLocators(e);
      if (missing.length) {
        throw badInput(
          `step ${i + 1} (#${e.n}, ${e.tool}) names its element by ref ${JSON.stringify(missing[0])}, and no locator was kept for it (none found that element alone, or it was gone before one was read): do that call again naming the element by css, text, label or role (read_page's JSON gives each element's selector) and keep the run from there, or keep a run without #${e.n}`,
        );
      }
      return { tool: e.tool, args: literal(args) as Record<string, unknown>, return: e.return === true };
    });
}

/** The flow's fields as save_flow's JSON form takes them (no `return: false` written out). */
export function flowFieldsOf(
  entries: readonly TimelineEntry[],
  tools: ToolTable,
  description?: string,
): { description: string; steps: Array<Record<string, unknown>> } {
  const first = entries[0]?.n;
  const last = entries[entries.length - 1]?.n;
  return {
    description:
      description ??
      (first === last ? `From the timeline: #${first}.` : `From the timeline: #${first} to #${last}.`),
    steps: stepsOf(entries, tools).map((s) =>
      s.return ? { tool: s.tool, args: s.args, return: true } : { tool: s.tool, args: s.args },
    ),
  };
}
