// GET /openapi.json, built from the action and resource tables.

import type { AnyAction } from "../actions/action.ts";
import { VERSION } from "../kit/version.ts";
import { ACTIONS, RESOURCES } from "../registry.ts";
import { jsonSchema } from "./json-schema.ts";

export const ERROR_MEANINGS: Record<string, string> = {
  "400":
    "The request cannot succeed as sent — a missing field, a value that was rejected, or a locator that matched nothing before the wait ran out. Do not retry it unchanged.",
  "401": "Missing or wrong bearer token.",
  "404": "No such thing: the message says what is missing.",
  "413":
    "The body is over its cap: 1 MiB of JSON, 64 MiB of upload, 1 MiB of flow YAML. Send less; retrying it unchanged will fail again.",
  "500": "Something failed that this server did not expect.",
  "503":
    "The Grid could not serve this — unreachable, or no free slot for a new browser. Worth retrying after a wait.",
};

const ErrorSchema = {
  type: "object",
  properties: { error: { type: "string", description: "What was wrong and what to do." } },
  required: ["error"],
};

const workspaceParams = [
  {
    name: "X-Workspace",
    in: "header",
    required: false,
    description: "The workspace this call acts in. Send this or ?workspace=, not both.",
    schema: { type: "string" },
  },
  {
    name: "workspace",
    in: "query",
    required: false,
    description: "The workspace this call acts in. Send this or X-Workspace, not both.",
    schema: { type: "string" },
  },
];

function pathParams(path: string) {
  return [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
}

function errors(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, description] of Object.entries(ERROR_MEANINGS)) {
    out[status] = { description, content: { "application/json": { schema: ErrorSchema } } };
  }
  return out;
}

function operation(action: AnyAction) {
  const params = pathParams(action.http.path).map((p) => p.name);
  const input = jsonSchema(action.input, "input") as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  const body = { ...input, properties: { ...(input.properties ?? {}) } };
  for (const p of params) delete body.properties[p as string];
  if (body.required) body.required = body.required.filter((r) => !params.includes(r));
  const op: Record<string, unknown> = {
    operationId: action.name,
    summary: action.http.summary ?? action.title,
    description: [action.description, action.docs].filter(Boolean).join("\n\n"),
    parameters: [...pathParams(action.http.path), ...workspaceParams],
    responses: {
      "200": {
        description: "The result.",
        content: { "application/json": { schema: jsonSchema(action.output, "output") } },
      },
      ...errors(),
    },
    "x-mcp-tool": action.name,
  };
  if (action.http.method !== "GET" && action.http.method !== "DELETE") {
    const content: Record<string, unknown> = { "application/json": { schema: body } };
    // An action that takes a multipart form is an upload: the file as a part named "file", every
    // other field as a part holding its JSON.
    if (action.http.bodies) {
      for (const [type, schema] of Object.entries(action.http.bodies)) content[type] = { schema };
    } else if (action.http.takes?.includes("multipart")) {
      const parts = {
        ...body.properties,
        file: { type: "string", format: "binary", description: "The file." },
      };
      content["multipart/form-data"] = { schema: { type: "object", properties: parts } };
    }
    op.requestBody = { required: false, content };
  }
  return op;
}

export function openApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const action of ACTIONS) {
    const at = paths[action.http.path] ?? {};
    paths[action.http.path] = at;
    at[action.http.method.toLowerCase()] = operation(action);
  }
  for (const r of RESOURCES) {
    const at = paths[r.http] ?? {};
    paths[r.http] = at;
    const content = r.output
      ? { "application/json": { schema: jsonSchema(r.output, "output") } }
      : { [r.mimeType ?? "text/plain"]: { schema: { type: "string" } } };
    at.get = {
      operationId: r.openapi?.operationId ?? `read_${r.name.replace(/[^a-z0-9]+/gi, "_")}`,
      summary: r.openapi?.summary ?? r.title,
      description: r.openapi?.description ?? r.description,
      parameters: [...pathParams(r.http), ...(r.perWorkspace === false ? [] : workspaceParams)],
      responses: { "200": { description: "The resource.", content }, ...errors() },
      "x-mcp-resource": r.uri,
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "selenium-flow",
      version: VERSION,
      description:
        "Drive real browsers on a Selenium Grid. Every action is also an MCP tool at /mcp. Authenticate with Authorization: Bearer <token>; name the workspace with X-Workspace or ?workspace=.",
    },
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    security: [{ bearer: [] }],
    paths,
  };
}
