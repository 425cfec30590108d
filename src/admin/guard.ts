// What every admin JSON route shares, the core's and the capabilities' alike: the credential check
// and the workspace it names.
import { notFound } from "../errors.ts";
import { failure } from "../http/json.ts";
import { requireJson } from "../http/media.ts";
import type { Services } from "../services.ts";
import { workspaceExists } from "./rows.ts";

/** Guards an admin handler: the token or a signed-in cookie (from our own pages when it changes something), then the answer or the failure. */
export function guarded<T extends { request: Request }>(
  services: Services,
  fn: (ctx: T) => Promise<Response> | Response,
): (ctx: T) => Promise<Response> {
  return async (ctx) => {
    try {
      await services.admin.require(ctx.request);
      // The admin routes read no body; one that is not JSON is refused like on every JSON route.
      requireJson(ctx.request);
      return await fn(ctx);
    } catch (err) {
      return failure(err);
    }
  };
}

/** 404 `no workspace <key>` unless the workspace exists. */
export async function requireWorkspace(services: Services, key: string): Promise<string> {
  if (!(await workspaceExists(services, key))) throw notFound(`no workspace ${key}`);
  return key;
}
