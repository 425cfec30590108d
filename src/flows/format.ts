// The flow format: YAML with description, params, steps, onError and timeout. A flow is checked
// when it is saved and again, with the run's parameters, before it runs; every refusal is a 400
// that names the step and the line it is written on. This file parses; schema.ts holds the fields,
// lines.ts the located refusals, bind.ts the mapping of steps onto tools.
import { LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { issueError } from "../actions/validate.ts";
import { type AppError, badInput } from "../errors.ts";
import { isObject } from "../kit/json.ts";
import { fill, REF_IN_FLOW, SELECTOR_FIELDS, stepTool, undefinedParam } from "./bind.ts";
import { checkNodes, issuePath, lineAt, locate, ParsedFlow, type Path } from "./lines.ts";
import {
  DEFAULT_TIMEOUT,
  FLOW_CAP,
  type Flow,
  type FlowParam,
  FlowSpec,
  GUIDE_URI,
  MAX_PARAMS,
} from "./schema.ts";
import type { ToolTable } from "./tools.ts";

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Reads a flow's YAML (or JSON) text and checks it against the tools it calls. */
export function parseFlow(text: string, tools: ToolTable): ParsedFlow {
  if (new TextEncoder().encode(text).length > FLOW_CAP) {
    throw badInput(`the flow is over its cap of ${FLOW_CAP} bytes of YAML: make it shorter`);
  }
  const lines = new LineCounter();
  // yaml's own uniqueKeys compares each key with every other (30,000 keys took 19 s): checked below.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  const broken = doc.errors[0];
  if (broken) {
    const { line, col } = lines.linePos(broken.pos[0]);
    throw badInput(`invalid YAML at line ${line}, column ${col}: ${broken.message}`);
  }
  checkNodes(doc, lines);
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 0 }) as unknown;
  } catch {
    throw badInput(`line 1: the flow cannot be read as data: see ${GUIDE_URI}`);
  }
  const steps: Array<{ tool?: unknown }> =
    isObject(raw) && Array.isArray(raw.steps) ? raw.steps.map((s) => (isObject(s) ? s : {})) : [];
  const refuse = (path: Path, what: string) =>
    badInput(`${locate(steps, path, lineAt(doc, lines, path))}: ${what}`);
  if (!isObject(raw)) {
    throw refuse(
      [],
      `a flow is a YAML mapping with description, params, steps, onError and timeout: see ${GUIDE_URI}`,
    );
  }
  checkParams(raw.params, refuse);
  const parsed = FlowSpec.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    throw refuse(issuePath([], issue), issueError(FlowSpec, issue).message);
  }
  const spec = parsed.data;
  // fromEntries defines each name as an own key (a parameter called __proto__ stays one).
  const params: Record<string, FlowParam> = Object.fromEntries(
    Object.entries(spec.params ?? {}).map(([name, value]): [string, FlowParam] => [
      name,
      value === null ? {} : typeof value === "object" ? { ...value } : { default: value },
    ]),
  );
  const flow: Flow = {
    description: spec.description ?? "",
    params,
    steps: spec.steps.map((s) => ({ tool: s.tool, args: s.args ?? {}, return: s.return === true })),
    onError: spec.onError ?? "stop",
    timeout: spec.timeout ?? DEFAULT_TIMEOUT,
  };
  const out = new ParsedFlow(flow, text, doc, lines);
  // The save-time check: defaults stand in for parameters, and a field that holds a placeholder
  // is checked when the run gives its value.
  const values = new Map(Object.entries(params).map(([k, p]) => [k, p.default]));
  flow.steps.forEach((step, i) => {
    const action = stepTool(out, tools, i);
    for (const field of SELECTOR_FIELDS) {
      const sel = step.args[field];
      if (sel !== null && typeof sel === "object" && Object.hasOwn(sel, "ref"))
        throw out.refuse(["steps", i, "args", field, "ref"], REF_IN_FLOW);
    }
    const placeholders: Path[] = [];
    const filled = fill(
      step.args,
      values,
      [],
      (p) => placeholders.push(p),
      (name, p) => {
        throw out.refuse(["steps", i, "args", ...p], undefinedParam(name, params));
      },
    );
    const result = action.input.safeParse(filled);
    if (result.success) return;
    const issues = result.error.issues as z.core.$ZodIssue[];
    const issue = issues.find((is) => !placeholders.some((p) => p.every((seg, k) => is.path[k] === seg)));
    if (issue)
      throw out.refuse(
        ["steps", i, "args", ...issuePath([], issue)],
        issueError(action.input, issue).message,
      );
  });
  return out;
}

function checkParams(raw: unknown, refuse: (path: Path, what: string) => AppError): void {
  if (raw === undefined || raw === null) return;
  if (!isObject(raw)) throw refuse(["params"], "params is a mapping of parameter names to their defaults");
  const count = Object.keys(raw).length;
  if (count > MAX_PARAMS) {
    throw refuse(["params"], `a flow takes at most ${MAX_PARAMS} parameters; this one declares ${count}`);
  }
  for (const [name, value] of Object.entries(raw)) {
    const at = ["params", name];
    if (!PARAM_NAME.test(name)) {
      throw refuse(
        at,
        `parameter name "${name}" is not allowed: use letters, digits and _, not starting with a digit`,
      );
    }
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) continue;
    const ok =
      isObject(value) &&
      Object.keys(value).every((k) => k === "default" || k === "description") &&
      (value.default === undefined || ["string", "number", "boolean"].includes(typeof value.default)) &&
      (value.description === undefined || typeof value.description === "string");
    if (!ok) {
      throw refuse(
        at,
        `parameter "${name}" takes a default (a string, number or true/false), null when the run must pass it, or {default, description}`,
      );
    }
  }
}
