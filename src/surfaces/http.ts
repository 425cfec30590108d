// What every HTTP route shares: bearer auth, naming the workspace, reading a capped JSON body,
// and turning a failure into `{"error": ...}` with its status.
import { badInput, errorBody, statusOf, TooMany, unauthorized } from "../errors.ts";
import { log } from "../log.ts";
import { workspaceNameProblem } from "../names.ts";
import { bearerOf, sameToken } from "./admin-auth.ts";

export { JSON_CAP, readCapped, readJson } from "../body.ts";

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

export function failure(err: unknown): Response {
  const status = statusOf(err);
  if (status >= 500) log.error(`request failed: ${errorBody(err).error}`);
  const headers: Record<string, string> =
    err instanceof TooMany ? { "retry-after": String(err.retryAfter) } : {};
  return json(errorBody(err), status, headers);
}

/** Throws 401 unless the request carries the bearer token (no token configured: loopback only, open). */
export function requireToken(request: Request, token: string | null): void {
  if (!token) return;
  const given = bearerOf(request);
  if (given !== null && sameToken(given, token)) return;
  throw unauthorized();
}

const NAME_IT =
  "name a workspace: send the X-Workspace header or add ?workspace=<name> to the URL (one of them, not both)";

/** The workspace a request names with `X-Workspace` or `?workspace=`; both or neither is a 400. */
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
