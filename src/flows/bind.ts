// Mapping a flow's steps onto tools: each step's tool looked up, the run's parameters filled into
// its arguments, and the result checked by that tool's own input schema.

import type { z } from "zod";
import type { AnyAction } from "../actions/action.ts";
import { issueError } from "../actions/validate.ts";
import { badInput } from "../errors.ts";
import { isObject } from "../kit/json.ts";
import { issuePath, type ParsedFlow, type Path } from "./lines.ts";
import type { FlowParam, ParamValue } from "./schema.ts";
import { NOT_STEPS, type ToolTable } from "./tools.ts";

const REF = /\$\$\{|\$\{([^}]*)\}/g;
const WHOLE = /^\$\{\s*([^}]*?)\s*\}$/;

/** The step fields that take a selector. */
export const SELECTOR_FIELDS = ["selector", "target", "frame"];

export const REF_IN_FLOW =
  'a flow cannot hold a ref: a ref names an element of one page as one read_page saw it. Use css, text, label or role and name (read_page\'s line `- button "Sign in" [e7]` is {"role": "button", "name": "Sign in"})';

export function stepTool(parsed: ParsedFlow, tools: ToolTable, i: number): AnyAction {
  const name = parsed.flow.steps[i]?.tool ?? "";
  const action = tools.get(name);
  if (action) return action;
  if (NOT_STEPS.has(name)) {
    throw parsed.refuse(
      ["steps", i, "tool"],
      `${name} cannot be a step: a flow does not run, save or delete flows`,
    );
  }
  throw parsed.refuse(
    ["steps", i, "tool"],
    `unknown tool "${name}": a step's tool is one of ${tools.names().join(", ")}`,
  );
}

export function undefinedParam(name: string, params: Record<string, FlowParam>): string {
  const declared = Object.keys(params);
  return `\${${name}} is not a parameter of this flow: declare it under params${declared.length ? ` (it has ${declared.join(", ")})` : ""}`;
}

/**
 * `value` with every `${name}` replaced by that parameter: a string that is one placeholder takes
 * the parameter's own type; a parameter without a value leaves its placeholder as written.
 */
export function fill(
  value: unknown,
  values: ReadonlyMap<string, ParamValue | undefined>,
  path: Path,
  onPlaceholder: (path: Path) => void,
  onUnknown: (name: string, path: Path) => never,
): unknown {
  if (typeof value === "string") {
    if (!value.includes("${")) return value;
    const whole = WHOLE.exec(value);
    if (whole) {
      const name = whole[1] as string;
      if (!values.has(name)) onUnknown(name, path);
      onPlaceholder(path);
      return values.get(name) ?? value;
    }
    let referred = false;
    const out = value.replace(REF, (match, inner: string | undefined) => {
      if (inner === undefined) return "${";
      const name = inner.trim();
      if (!values.has(name)) onUnknown(name, path);
      referred = true;
      const v = values.get(name);
      return v === undefined ? match : String(v);
    });
    if (referred) onPlaceholder(path);
    return out;
  }
  if (Array.isArray(value)) {
    return value.map((v, i) => fill(v, values, [...path, i], onPlaceholder, onUnknown));
  }
  if (isObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, fill(v, values, [...path, k], onPlaceholder, onUnknown)]),
    );
  }
  return value;
}

/** One step ready to call: its action and its checked input, with the run's parameters in. */
export interface BoundStep {
  n: number;
  tool: string;
  action: AnyAction;
  input: Record<string, unknown>;
  /** The step's arguments with the parameters in, as written (before its tool's defaults). */
  args: Record<string, unknown>;
  return: boolean;
  line: number;
}

/** The steps with the run's parameters in, each input checked by its tool's own schema. */
export function bindFlow(
  parsed: ParsedFlow,
  given: Readonly<Record<string, ParamValue>>,
  tools: ToolTable,
): BoundStep[] {
  const { params, steps } = parsed.flow;
  const declared = Object.keys(params);
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(params, name)) {
      throw badInput(
        `unknown parameter "${name}": this flow takes ${declared.length ? declared.join(", ") : "no parameters"}`,
        "params",
      );
    }
  }
  const values = new Map<string, ParamValue>();
  for (const [name, p] of Object.entries(params)) {
    const value = (Object.hasOwn(given, name) ? given[name] : undefined) ?? p.default;
    if (value === undefined) {
      throw badInput(`parameter "${name}" has no default: pass it in params`, "params");
    }
    values.set(name, value);
  }
  return steps.map((step, i) => {
    const action = stepTool(parsed, tools, i);
    const filled = fill(
      step.args,
      values,
      [],
      () => undefined,
      (name, p) => {
        throw parsed.refuse(["steps", i, "args", ...p], undefinedParam(name, params));
      },
    );
    const result = action.input.safeParse(filled);
    if (!result.success) {
      const issue = result.error.issues[0] as z.core.$ZodIssue;
      throw parsed.refuse(
        ["steps", i, "args", ...issuePath([], issue)],
        issueError(action.input, issue).message,
      );
    }
    return {
      n: i + 1,
      tool: step.tool,
      action,
      input: result.data as Record<string, unknown>,
      args: filled as Record<string, unknown>,
      return: step.return,
      line: parsed.lineAt(["steps", i]),
    };
  });
}
