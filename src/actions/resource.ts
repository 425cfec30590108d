// Read-only views of a workspace: each is an MCP resource and a REST GET from one declaration. `S`
// is what its read is handed: the services of the capability that declares it, not the server's.
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import type { z } from "zod";
import { badInput } from "../errors.ts";

export interface ResourceDef<S = unknown> {
  /** `workspace://current`, or a template with `{param}` segments (`workspace://site-data/{site}`). */
  uri: string;
  name: string;
  title: string;
  /** What an agent finds there; a prompt like a tool description. */
  description: string;
  /** The REST twin, relative to the server root, with the same `{param}` segments. */
  http: string;
  /** The REST twin's OpenAPI operation, where it is not derived from the name, title and description. */
  openapi?: { operationId?: string; summary?: string; description?: string };
  mimeType?: string;
  /** The JSON shape it answers with (for OpenAPI); absent for text resources. */
  output?: z.ZodType;
  /** Whether it belongs to a workspace (false for the agent guide). */
  perWorkspace?: boolean;
  read: (services: S, workspace: string, params: Record<string, string>) => Promise<unknown>;
}

export function defineResource<S>(def: ResourceDef<S>): ResourceDef<S> {
  return def;
}

export function isTemplate(def: Pick<ResourceDef, "uri">): boolean {
  return UriTemplate.isTemplate(def.uri);
}

/** Matches `uri` against a template (RFC 6570, the MCP SDK's matcher); the params, decoded, or null. */
export function matchUri(template: string, uri: string): Record<string, string> | null {
  const found = new UriTemplate(template).match(uri);
  if (!found) return null;
  const params: Record<string, string> = {};
  for (const [n, raw] of Object.entries(found)) {
    try {
      // Our templates have no exploded variables: each value is one string.
      params[n] = decodeURIComponent(String(raw));
    } catch {
      throw badInput(`the ${n} in ${uri} is not valid percent-encoding: escape '%' as %25`, n);
    }
  }
  return params;
}
