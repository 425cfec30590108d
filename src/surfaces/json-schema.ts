// JSON Schema from zod, in two forms. The full form (OpenAPI, the generated docs) keeps every
// constraint and the readers' prose. The tool form (MCP tools/list) is what an agent pays for on
// every turn, so it says each thing once: no draft marker, no `additionalProperties: false` (the
// server refuses unknown fields with a 400 that names them), no length caps, no docs-only prose,
// and a shared shape shown as its type and one line rather than in full wherever it occurs.
import { z } from "zod";
import { isObject } from "../kit/json.ts";

declare module "zod" {
  interface GlobalMeta {
    /** The readers' text: the docs and OpenAPI show it in place of the description; tools/list leaves it out. */
    docs?: string;
    /** A shape many results or inputs share: tools/list shows only its type and description where it is a part. */
    shared?: boolean;
  }
}

type Node = Record<string, unknown>;

// What zod's int() emits when no bound was given: the safe-integer range, which tells nobody anything.
const MEANINGLESS = new Set([Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]);

/** Rewrites every subschema of `node` in place, children first. */
function walk(node: Node, visit: (n: Node) => void): void {
  for (const key of ["properties", "$defs", "patternProperties"]) {
    const map = node[key];
    if (isObject(map)) for (const child of Object.values(map)) if (isObject(child)) walk(child, visit);
  }
  for (const key of ["items", "additionalProperties", "propertyNames", "not"]) {
    const child = node[key];
    if (isObject(child)) walk(child, visit);
  }
  for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"]) {
    const list = node[key];
    if (Array.isArray(list)) for (const child of list) if (isObject(child)) walk(child, visit);
  }
  visit(node);
}

function base(schema: z.ZodType, io: "input" | "output"): Node {
  const out = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Node;
  delete out.$schema;
  walk(out, (n) => {
    if (MEANINGLESS.has(n.minimum as number)) delete n.minimum;
    if (MEANINGLESS.has(n.maximum as number)) delete n.maximum;
  });
  return out;
}

/** The full form, for OpenAPI and the generated docs: every constraint, and the readers' text where a field has one. */
export function jsonSchema(schema: z.ZodType, io: "input" | "output"): Node {
  const out = base(schema, io);
  walk(out, (n) => {
    if (typeof n.docs === "string") n.description = n.docs;
    delete n.docs;
    delete n.shared;
  });
  return out;
}

/**
 * The form tools/list carries: what an agent needs to call the tool, said once. An output schema
 * keeps its whole structure for programs to check results against, but no prose: models are not
 * shown output schemas, and the tool's description says what a result means.
 */
export function toolSchema(schema: z.ZodType, io: "input" | "output"): Node {
  const out = base(schema, io);
  const collapsed = new WeakSet<Node>();
  walk(out, (n) => {
    delete n.docs;
    if (io === "output") delete n.description;
    // Where a shared shape is the whole schema (keep_file answers with a file entry), it is shown in full.
    if (n.shared && n !== out) {
      // A shared choice of shapes keeps the types its branches share ("object" for entries of kinds).
      if (n.type === undefined && Array.isArray(n.anyOf)) {
        const kinds = [
          ...new Set((n.anyOf as Node[]).map((b) => b.type).filter((t) => typeof t === "string")),
        ];
        if (kinds.length) n.type = kinds.length === 1 ? kinds[0] : kinds;
      }
      for (const key of Object.keys(n)) if (key !== "type" && key !== "description") delete n[key];
      collapsed.add(n);
    }
    delete n.shared;
    // Length caps guard the server (the 400 names the field and its cap); no agent comes near them.
    delete n.minLength;
    delete n.maxLength;
    delete n.maxItems;
    if (n.additionalProperties === false) delete n.additionalProperties;
    // {} allows anything, as leaving it out does.
    if (isObject(n.additionalProperties) && Object.keys(n.additionalProperties).length === 0)
      delete n.additionalProperties;
    if (Array.isArray(n.anyOf)) {
      const branches = n.anyOf as Node[];
      // A described choice of a shared shape (or null): the choice's own line says what it is.
      if (n.description) for (const b of branches) if (collapsed.has(b)) delete b.description;
      // Bare types read shorter as a list of types (the same schema).
      if (branches.every((b) => Object.keys(b).length === 1 && typeof b.type === "string")) {
        n.type = branches.map((b) => b.type);
        delete n.anyOf;
      }
    }
    // A record's keys are strings in JSON anyway.
    if (
      isObject(n.propertyNames) &&
      n.propertyNames.type === "string" &&
      Object.keys(n.propertyNames).length === 1
    )
      delete n.propertyNames;
  });
  return out;
}
