// What the agent surfaces' HTTP routes share: bearer auth and naming the workspace. JSON answers,
// failures and capped bodies are src/http/json.ts (re-exported here for the surfaces).

import { bearerOf, sameToken } from "../admin/auth.ts";
import { badInput, unauthorized } from "../errors.ts";
import { workspaceNameProblem } from "../kit/names.ts";

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
