// The flow format: YAML with description, params, steps, onError and timeout. A flow is checked
// when it is saved and again, with the run's parameters, before it runs; every refusal is a 400
// that names the step and the line it is written on.
import {
  type Document,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  stringify,
  visit,
} from "yaml";
import { z } from "zod";
import type { AnyAction } from "../actions/shape.ts";
import { issueError } from "../actions/validate.ts";
import { badInput, type FlowError } from "../errors.ts";
import { NOT_STEPS, type ToolTable } from "./tools.ts";

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

const FlowSpec = z.strictObject(flowFields);

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const REF = /\$\$\{|\$\{([^}]*)\}/g;
const WHOLE = /^\$\{\s*([^}]*?)\s*\}$/;

type Path = ReadonlyArray<string | number>;

/** The step fields that take a selector. */
const SELECTOR_FIELDS = ["selector", "target", "frame"];
export const REF_IN_FLOW =
  'a flow cannot hold a ref: a ref names an element of one page as one read_page saw it. Use css, text, label or role and name (read_page\'s line `- button "Sign in" [e7]` is {"role": "button", "name": "Sign in"})';

/** A flow read and checked, with where each of its parts is written. */
export class ParsedFlow {
  constructor(
    readonly flow: Flow,
    readonly text: string,
    private readonly doc: Document,
    private readonly lines: LineCounter,
  ) {}

  /** The line `path` (into the document) is written on; the nearest enclosing part's when it is absent. */
  lineAt(path: Path): number {
    return lineAt(this.doc, this.lines, path);
  }

  /** A 400 located at `path`: `step 2 (navigate) at line 7: …` or `line 3: …`. */
  refuse(path: Path, what: string, field?: string): FlowError {
    return badInput(`${locate(this.flow.steps, path, this.lineAt(path))}: ${what}`, field);
  }
}

function lineAt(doc: Document, lines: LineCounter, path: Path): number {
  let node: unknown = doc.contents;
  let line = lineOf(node, lines) || 1;
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && (isScalar(p.key) ? p.key.value : p.key) === seg);
      if (!pair) break;
      line = lineOf(pair.key, lines) || line;
      node = pair.value;
    } else if (isSeq(node) && typeof seg === "number") {
      node = node.items[seg];
      if (!node) break;
      line = lineOf(node, lines) || line;
    } else break;
  }
  return line;
}

function lineOf(node: unknown, lines: LineCounter): number {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  return range ? lines.linePos(range[0]).line : 0;
}

function locate(steps: ReadonlyArray<{ tool?: unknown }>, path: Path, line: number): string {
  if (path[0] === "steps" && typeof path[1] === "number") {
    const tool = steps[path[1]]?.tool;
    return `step ${path[1] + 1}${typeof tool === "string" && tool ? ` (${tool})` : ""} at line ${line}`;
  }
  return `line ${line}`;
}

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

/**
 * One pass over the document: a key written twice in a mapping, a `__proto__` key, or an alias
 * (`*name`: an alias bomb grows a few lines into gigabytes), is refused at its line.
 */
function checkNodes(doc: Document, lines: LineCounter): void {
  const pos = (node: unknown) => {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    return range ? lines.linePos(range[0]) : { line: 1, col: 1 };
  };
  visit(doc, {
    Alias(_, node) {
      throw badInput(
        `line ${pos(node).line}: aliases (*${node.source}) are not allowed in a flow: write the value out`,
      );
    },
    Map(_, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        // Parsed into an object, this key would set its prototype rather than name a field.
        if (key === "__proto__") {
          throw badInput(`line ${pos(pair.key).line}: "__proto__" cannot be a key in a flow`);
        }
        if (seen.has(key)) {
          // yaml's own words for it, as uniqueKeys said them.
          const { line, col } = pos(pair.key ?? map);
          throw badInput(`invalid YAML at line ${line}, column ${col}: Map keys must be unique`);
        }
        seen.add(key);
      }
    },
  });
}

function checkParams(raw: unknown, refuse: (path: Path, what: string) => FlowError): void {
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

function stepTool(parsed: ParsedFlow, tools: ToolTable, i: number): AnyAction {
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

function undefinedParam(name: string, params: Record<string, FlowParam>): string {
  const declared = Object.keys(params);
  return `\${${name}} is not a parameter of this flow: declare it under params${declared.length ? ` (it has ${declared.join(", ")})` : ""}`;
}

/** The path to point at for an issue: an unknown key's own line rather than its object's. */
function issuePath(prefix: Path, issue: z.core.$ZodIssue): Path {
  const path = [...prefix, ...(issue.path as Array<string | number>)];
  if (issue.code === "unrecognized_keys" && issue.keys[0]) path.push(issue.keys[0]);
  return path;
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

/** The YAML a flow given as fields (save_flow's JSON form) is stored as. */
export function flowText(fields: Record<string, unknown>): string {
  return stringify(fields, { lineWidth: 0 });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
