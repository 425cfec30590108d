// The REST surface: one route per action and one GET per resource, all from the tables.
import { Elysia } from "elysia";
import { z } from "zod";
import { ACTIONS } from "../actions/index.ts";
import type { AnyAction } from "../actions/shape.ts";
import { badInput } from "../errors.ts";
import { json, readJson } from "../http/json.ts";
import { requireJson, YAML_TYPES } from "../http/media.ts";
import type { ResourceDef } from "../resources/define.ts";
import { RESOURCES } from "../resources/index.ts";
import type { Services } from "../services.ts";
import { invoke } from "../workspaces/invoke.ts";
import { requireToken, workspaceOf } from "./http.ts";

/** `/browser/interact/{action}` → `/browser/interact/:action`. */
export function elysiaPath(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, ":$1");
}

/** A route's path params as its schema: each a string, decoded once by Elysia (null when it could not be). */
function pathSchema(path: string) {
  const names = [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);
  const error = (k: string) => `the path segment for ${k} is not valid percent-encoding`;
  // A path without params has none to check (Elysia hands it no params object).
  return z.object(Object.fromEntries(names.map((k) => [k, z.string({ error: error(k) })]))).default({});
}

/** The body types an action takes besides JSON. */
function bodyTypes(action: AnyAction): string[] {
  const { bodies, readBody } = action.http;
  if (bodies) return Object.keys(bodies).flatMap((t) => (t === "application/yaml" ? YAML_TYPES : [t]));
  return readBody ? ["multipart/form-data"] : [];
}

async function runAction(
  services: Services,
  action: AnyAction,
  request: Request,
  params: Record<string, string>,
): Promise<Response> {
  requireToken(request, services.config.auth.token);
  requireJson(request, bodyTypes(action));
  const workspace = workspaceOf(request);
  const body = action.http.readBody ? await action.http.readBody(request) : await readJson(request);
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw badInput("the body must be a JSON object");
  }
  const merged: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const [k, v] of Object.entries(params)) {
    if (Object.hasOwn(merged, k) && merged[k] !== v)
      throw badInput(`field "${k}" is given by the path: leave it out of the body`, k);
    merged[k] = v;
  }
  const result = await invoke(services, {
    surface: "rest",
    workspace,
    action,
    args: merged,
    signal: request.signal,
  });
  return json(result);
}

async function readResource(
  services: Services,
  resource: ResourceDef,
  request: Request,
  params: Record<string, string>,
): Promise<Response> {
  requireToken(request, services.config.auth.token);
  const workspace = resource.perWorkspace === false ? "" : workspaceOf(request);
  const read = await resource.read(services, workspace, params);
  if (read instanceof Response) return read;
  const out = services.redactor.redactDeep(read);
  if (typeof out === "string") {
    return new Response(out, {
      headers: { "content-type": `${resource.mimeType ?? "text/plain"}; charset=utf-8` },
    });
  }
  return json(out);
}

export function restRoutes(services: Services) {
  const app = new Elysia({ name: "rest" });
  for (const action of ACTIONS) {
    app.route(
      action.http.method,
      elysiaPath(action.http.path),
      ({ request, params }) => runAction(services, action, request, params),
      { parse: "none", params: pathSchema(action.http.path) },
    );
  }
  for (const resource of RESOURCES) {
    app.get(
      elysiaPath(resource.http),
      ({ request, params }) => readResource(services, resource, request, params),
      { parse: "none", params: pathSchema(resource.http) },
    );
  }
  return app;
}
