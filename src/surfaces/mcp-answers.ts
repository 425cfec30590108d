// What MCP says back, the same on every transport and spec version: the tool list made from the
// action table, a tool's failure as a tool error, our failures as MCP's error codes, a resource's
// bytes, and who the server is.
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AnyAction } from "../actions/action.ts";
import { errorBody, statusOf, tooLarge } from "../errors.ts";
import { isText } from "../kit/file-types.ts";
import { VERSION } from "../kit/version.ts";
import { ACTIONS } from "../registry.ts";
import type { Redactor } from "../secrets/redactor.ts";
import { toolSchema } from "./json-schema.ts";

export const INSTRUCTIONS = [
  "selenium-flow drives a real browser for you on a Selenium Grid. Your browser belongs to this workspace and outlives the conversation: it is reopened silently if the Grid reaps it, on the page you were on.",
  'Start with navigate (a browser opens by itself), then read_page to see the page and act on its elements by their refs ({"ref": "e12"}); read it again after the page navigates.',
  "Read workspace://current to see where you are without touching the browser.",
].join(" ");

export const SERVER_INFO = { name: "selenium-flow", title: "selenium-flow", version: VERSION };

export const CAPABILITIES = {
  tools: {},
  resources: { subscribe: true },
  logging: {},
  prompts: {},
  completions: {},
};

export function toolOf(action: AnyAction): Tool {
  return {
    name: action.name,
    title: action.title,
    description: action.description,
    inputSchema: toolSchema(action.input, "input") as Tool["inputSchema"],
    outputSchema: toolSchema(action.output, "output") as Tool["outputSchema"],
    // The title is the tool's own (annotations.title is its older place: said once). A hint the
    // spec's default says already (readOnly false, destructive true, idempotent false, openWorld
    // true) is left out: the client reads it the same.
    annotations: {
      ...(action.annotations.readOnly && { readOnlyHint: true }),
      ...(!action.annotations.destructive && { destructiveHint: false }),
      ...(action.annotations.idempotent && { idempotentHint: true }),
      ...(!action.annotations.openWorld && { openWorldHint: false }),
    },
  };
}

export function toolError(err: unknown, redactor?: Pick<Redactor, "redact">): CallToolResult {
  const text = errorBody(err).error;
  return { content: [{ type: "text", text: redactor ? redactor.redact(text) : text }], isError: true };
}

// The tool list is the same for every session and server: a constant built when this module loads
// (on the first /mcp request), not per request (it is most of a session's memory otherwise).
export const TOOL_TABLE: {
  readonly tools: readonly Tool[];
  readonly byName: ReadonlyMap<string, AnyAction>;
} = {
  tools: ACTIONS.map(toolOf),
  byName: new Map(ACTIONS.map((a) => [a.name, a])),
};

/** MCP's code for a resource that is not there (2025-11-25; 2026-07-28 says invalid params). */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * A resource's failure as MCP says it: bad input is invalid params (the 400), an unknown resource
 * its "resource not found" (the 404), the rest an internal error; the text is REST's.
 */
export function resourceError(err: unknown, redactor?: Pick<Redactor, "redact">): Error & { code: number } {
  const status = statusOf(err);
  const code = status === 400 ? -32602 : status === 404 ? RESOURCE_NOT_FOUND : -32603;
  // A plain Error with a code: the SDK sends its message as it is (McpError's would carry a prefix).
  const text = errorBody(err).error;
  return Object.assign(new Error(redactor ? redactor.redact(text) : text), { code });
}

// Bytes over MCP: text a model can read as text, anything else as a base64 blob, within a cap.
const RESOURCE_BYTES_CAP = 16 * 1024 * 1024;

export async function resourceBytes(
  uri: string,
  res: Response,
): Promise<
  { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string }
> {
  const mimeType = (res.headers.get("content-type") ?? "application/octet-stream").split(";")[0]!.trim();
  const size = Number(res.headers.get("content-length") ?? "0");
  if (size > RESOURCE_BYTES_CAP) {
    await res.body?.cancel();
    throw tooLarge(
      `${uri} is over ${RESOURCE_BYTES_CAP / 1024 / 1024} MiB, too big to read here: fetch the url its listing gives`,
    );
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (isText(mimeType)) return { uri, mimeType, text: new TextDecoder().decode(bytes) };
  return { uri, mimeType, blob: Buffer.from(bytes).toString("base64") };
}
