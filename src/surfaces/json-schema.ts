import { z } from "zod";

/** JSON Schema for MCP and OpenAPI, without the draft marker MCP clients do not need. */
export function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}
