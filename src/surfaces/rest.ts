// The REST surface: one route per action and one GET per resource, all from the tables.
import { Elysia } from "elysia";
import { z } from "zod";
import type { AnyAction } from "../actions/action.ts";
import type { ResourceDef } from "../actions/resource.ts";
import { badInput } from "../errors.ts";
import { bodyParser, objectBody } from "../http/body.ts";
import { json } from "../http/json.ts";
import { workspaceNameProblem } from "../kit/names.ts";
import { ACTIONS, RESOURCES } from "../registry.ts";
import type { Services } from "../services.ts";

const NAME_IT =
  "name a workspace: send the X-Workspace header or add ?workspace=<name> to the URL (one of them, not both)";

/**
 * The workspace a request names with `X-Workspace` or `?workspace=`; both or neither is a 400 (MCP's
 * initialize names it the same way).
 */
export function workspaceOf(request: Request): string {
  const header = request.headers.get("x-workspace");
  const query = new URL(request.url).searchParams.get("workspace");
  if (header !== null && query !== null) {
    throw badInput(`both the X-Workspace header and ?workspace= name a workspace: ${NAME_IT}`, "workspace");
  }
  const name = (header ?? query ?? "").trim();
  if (!name) throw badInput(`no workspace named: ${NAME_IT}`, "workspace");
  const problem = workspaceNameProblem(name);
  if (problem) throw badInput(`invalid workspace name: ${problem}`, "workspace");
  return name;
}

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

/**
 * One action's call: its body as its route read it (its token checked first, in the parse stage; see
 * `restRoutes`), the path's params merged in.
 */
async function runAction(
  services: Services,
  action: AnyAction,
  request: Request,
  body: unknown,
  params: Record<string, string>,
): Promise<Response> {
  const workspace = workspaceOf(request);
  const args = action.http.fromBody ? await action.http.fromBody(body) : objectBody(body);
  const merged: Record<string, unknown> = { ...args };
  for (const [k, v] of Object.entries(params)) {
    if (Object.hasOwn(merged, k) && merged[k] !== v)
      throw badInput(`field "${k}" is given by the path: leave it out of the body`, k);
    merged[k] = v;
  }
  const result = await services.workspaces.calls.invoke({
    surface: "rest",
    workspace,
    action,
    args: merged,
    signal: request.signal,
    origin: new URL(request.url).origin,
  });
  return json(result);
}

async function readResource(
  services: Services,
  resource: ResourceDef<Services>,
  request: Request,
  params: Record<string, string>,
): Promise<Response> {
  services.gate.agent(request);
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
  const token = (request: Request) => services.gate.agent(request);
  // The token before a byte is read: the first of a route's parse hooks (beforeHandle runs after).
  const gate = ({ request }: { request: Request }) => token(request);
  for (const action of ACTIONS) {
    const path = elysiaPath(action.http.path);
    // A GET has no parse stage: its token is checked in its handler.
    const get = action.http.method === "GET";
    const read = bodyParser({
      kinds: ["json", ...(action.http.takes ?? [])],
      ...(action.http.caps ? { caps: action.http.caps } : {}),
    });
    app.route(
      action.http.method,
      path,
      ({ request, body, params }) => {
        if (get) token(request);
        return runAction(services, action, request, body, params);
      },
      { params: pathSchema(action.http.path), ...(get ? {} : { parse: [gate, read] }) },
    );
  }
  for (const resource of RESOURCES) {
    app.get(
      elysiaPath(resource.http),
      ({ request, params }) => readResource(services, resource, request, params),
      { params: pathSchema(resource.http) },
    );
  }
  return app;
}
