// One validation for every surface: REST and MCP give the same 400 text for the same bad input.
// Messages name the field and what it takes, never the submitted value (it may be a secret).
import type { z } from "zod";
import { type AppError, badInput } from "../errors.ts";

type Issue = z.core.$ZodIssue;

function fieldOf(issue: Issue): string {
  return issue.path.map(String).join(".");
}

function describe(issue: Issue, known: string[]): string {
  const field = fieldOf(issue);
  switch (issue.code) {
    case "unrecognized_keys": {
      // A body of thousands of unknown keys names the first few, not all of them.
      const keys = issue.keys.slice(0, 5).map((k) => (field ? `${field}.${k}` : k));
      const more = issue.keys.length > 5 ? ` and ${issue.keys.length - 5} more` : "";
      const takes = known.length ? ` (it takes ${known.join(", ")})` : "";
      return `unknown field ${keys.map((k) => `"${k}"`).join(", ")}${more}: remove it${takes}`;
    }
    case "invalid_type":
      if (!field) return `the body must be a JSON object`;
      if (issue.message.endsWith("received undefined")) return `missing field "${field}": it is required`;
      return `field "${field}" must be ${article(issue.expected)}`;
    case "too_big":
      if (issue.origin === "string")
        return `field "${field}" is too long: at most ${issue.maximum} characters`;
      if (issue.origin === "array") return `field "${field}" has too many items: at most ${issue.maximum}`;
      return `field "${field}" is too large: at most ${issue.maximum}`;
    case "too_small":
      return `field "${field}" is too ${issue.origin === "string" || issue.origin === "array" ? "short" : "small"}: at least ${issue.minimum}`;
    case "invalid_value":
      return `field "${field}" must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      if (!field) return issue.message;
      return issue.message.startsWith("must ")
        ? `field "${field}" ${issue.message}`
        : `field "${field}" is invalid: ${issue.message}`;
  }
}

function article(expected: string): string {
  const words: Record<string, string> = {
    string: "a string",
    number: "a number",
    int: "an integer",
    boolean: "true or false",
    object: "an object",
    array: "an array",
    record: "an object",
  };
  return words[expected] ?? expected;
}

/** The field names of the object schema at `path` inside `schema` (through arrays, optionals, pipes). */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  type Def = {
    type?: string;
    innerType?: unknown;
    in?: unknown;
    shape?: Record<string, unknown>;
    element?: unknown;
  };
  // zod 4's public `.def` (the schema's definition), read loosely: only these fields matter here.
  const defOf = (v: unknown) => (v as z.ZodType | undefined)?.def as Def | undefined;
  const unwrap = (v: unknown): unknown => {
    for (let i = 0; i < 10; i++) {
      const def = defOf(v);
      if (def?.innerType) v = def.innerType;
      else if (def?.type === "pipe") v = def.in;
      else break;
    }
    return v;
  };
  let at: unknown = unwrap(schema);
  for (const step of path) {
    const def = defOf(at);
    if (def?.type === "object") at = unwrap(def.shape?.[String(step)]);
    else if (def?.type === "array") at = unwrap(def.element);
    else return [];
  }
  const def = defOf(at);
  return def?.type === "object" ? Object.keys(def.shape ?? {}) : [];
}

/** For a number past the safe-integer range, the documented limit on that field (zod checks both). */
function documented(issues: Issue[]): Issue | undefined {
  const first = issues[0];
  if (first?.code !== "too_big" || first.origin !== "int") return undefined;
  const same = (i: Issue) => fieldOf(i) === fieldOf(first);
  return issues.find((i) => i !== first && i.code === "too_big" && same(i));
}

/** What a rule across fields found: the field under the checked value (none: the value itself), and what it must be. */
export interface Problem {
  path?: readonly (string | number)[];
  /** "must …" (validation's 400 says `field "x" must …`). */
  message: string;
}

/**
 * `schema` with `rule` checked on its parsed value, where zod runs a refinement (after the value's own
 * fields, before those of the value around it: the same issue order as the rule's own refinement).
 * The rule is a pure function of the value, returning its problems; the issues are made here.
 */
export function ruled<S extends z.ZodType>(
  schema: S,
  rule: (value: z.output<S>) => readonly Problem[] | Problem | null,
): S {
  return schema.superRefine((value, ctx) => {
    for (const p of [rule(value) ?? []].flat())
      ctx.addIssue({ code: "custom", message: p.message, ...(p.path?.length ? { path: [...p.path] } : {}) });
  });
}

/** Parses `value` with `schema` or throws a 400 naming the first bad field. */
export function validate<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues as Issue[];
  throw issueError(schema, documented(issues) ?? (issues[0] as Issue));
}

/** The 400 for one issue `schema` raised (for callers that pick among the issues themselves). */
export function issueError(schema: z.ZodType, issue: Issue): AppError {
  return badInput(describe(issue, keysAt(schema, issue.path)), fieldOf(issue) || undefined);
}
