// What the agent surfaces' HTTP routes share: bearer auth and /mcp's gate (the workspace a request
// names is rest.ts's `workspaceOf`).
// JSON answers and failures are src/http/json.ts; bodies src/http/body.ts (each route names its parser).

import { ADMIN_TOKEN_ON_AGENT, bearerOf, sameToken } from "../admin/auth.ts";
import type { Config } from "../config/schema.ts";
import { forbidden, unauthorized } from "../errors.ts";
import { requestHost } from "../http/guard.ts";
import type { Services } from "../services.ts";

/**
 * Throws 401 unless the request carries the agent token (no token configured: loopback only,
 * open). The admin token, when it is a token of its own, is named as the wrong one.
 */
export function requireToken(request: Request, auth: Pick<Config["auth"], "token" | "admin_token">): void {
  if (!auth.token) return;
  const given = bearerOf(request);
  if (given !== null && sameToken(given, auth.token)) return;
  if (given !== null && auth.admin_token && sameToken(given, auth.admin_token))
    throw unauthorized(ADMIN_TOKEN_ON_AGENT);
  throw unauthorized();
}

/** The methods whose /mcp requests carry a body (JSON): the others' is not read. */
export const MCP_BODY_METHODS = ["POST", "DELETE"];

/**
 * /mcp's checks, the first of its route's parse hooks (before anything is read, whatever the
 * method): the bearer token, and no page on another origin driving it (the app refuses its changes too).
 */
export function mcpGate(services: Pick<Services, "config" | "hosts">) {
  return (request: Request): void => {
    requireToken(request, services.config.auth);
    const origin = request.headers.get("origin");
    if (origin === null || services.hosts.ownOrigin(origin, requestHost(request))) return;
    throw forbidden("requests to /mcp from a web page on another origin are refused");
  };
}
