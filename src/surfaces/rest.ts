// The REST surface: one route per action and one GET per resource, all from the tables.
import { Elysia } from "elysia";
import type { AnyAction } from "../actions/define.ts";
import { ACTIONS } from "../actions/index.ts";
import { validate } from "../actions/validate.ts";
import { badInput, statusOf } from "../errors.ts";
import { failure, json, readJson } from "../http/json.ts";
import { requireJson, YAML_TYPES } from "../http/media.ts";
import { readingFor } from "../pieces.ts";
import type { ResourceDef } from "../resources/define.ts";
import { RESOURCES } from "../resources/index.ts";
import type { Services } from "../services.ts";
import { requireToken, workspaceOf } from "./http.ts";

/** `/browser/interact/{action}` → `/browser/interact/:action`. */
export function elysiaPath(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, ":$1");
}

/** Elysia's path params, decoded once already; one it could not decode (null) is a 400. */
function pathParams(params: Record<string, string | null | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    if (v === null) throw badInput(`the path segment for ${k} is not valid percent-encoding`, k);
    out[k] = v;
  }
  return out;
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
  const note = services.activity.start(services.now(), workspace, action.name, "rest");
  try {
    // Read for its workspace: pieces typed in another's browser mask nothing here (its error keeps that too).
    const result = await readingFor(workspace, () =>
      services.timeline.record({ surface: "rest", workspace, action, args: merged }, (after) =>
        services.workspaces.run(workspace, action, validate(action.input, merged), {
          signal: request.signal,
          after,
        }),
      ),
    );
    note(200);
    return json(result);
  } catch (err) {
    note(statusOf(err));
    throw err;
  }
}

async function readResource(
  services: Services,
  resource: ResourceDef,
  request: Request,
  params: Record<string, string>,
): Promise<Response> {
  requireToken(request, services.config.auth.token);
  const workspace = resource.perWorkspace === false ? "" : workspaceOf(request);
  const out = await readingFor(workspace, async () => resource.read(services, workspace, params));
  if (out instanceof Response) return out;
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
      async ({ request, params }) => {
        try {
          return await runAction(
            services,
            action,
            request,
            pathParams((params ?? {}) as Record<string, string | null>),
          );
        } catch (err) {
          return failure(err);
        }
      },
      { parse: "none" },
    );
  }
  for (const resource of RESOURCES) {
    app.get(
      elysiaPath(resource.http),
      async ({ request, params }) => {
        try {
          return await readResource(
            services,
            resource,
            request,
            pathParams((params ?? {}) as Record<string, string | null>),
          );
        } catch (err) {
          return failure(err);
        }
      },
      { parse: "none" },
    );
  }
  return app;
}
