// What every admin JSON route shares, the core's and the capabilities' alike: the credential check
// (the `admin` route option) and the workspace it names.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Elysia } from "elysia";
import { z } from "zod";
import { notFound } from "../errors.ts";
import { json } from "../http/json.ts";
import { requireJson } from "../http/media.ts";
import { isWorkspaceName } from "../kit/names.ts";
import { type Gate, isAdminPath } from "./auth.ts";
import type { WorkspaceLookup } from "./rows.ts";

/** What every admin route is handed at least: the credential's check and where workspaces are. */
export interface AdminNeeds extends WorkspaceLookup {
  readonly gate: Pick<Gate, "admin">;
}

/**
 * The `admin: true` route option: the token or a signed-in cookie (from our own pages when it
 * changes something), and no body but JSON. Under /admin the app's first hook checked the
 * credential already (src/app.ts), once a request; a route elsewhere is checked here. It runs in
 * `transform`, before the route's schemas (a caller without the credential hears a 401, never a
 * 400 about a param); a route of these that reads a body (`parse: bodyParser()`) is under /admin, its
 * credential checked before the parse stage, and its parser took JSON only (the same 415): once the
 * body is read, nothing is left to check here.
 */
export function adminGuard(services: Pick<AdminNeeds, "gate">) {
  return new Elysia().macro({
    admin: {
      async transform({ request }: { request: Request }) {
        if (!isAdminPath(new URL(request.url).pathname)) await services.gate.admin(request);
        if (!request.bodyUsed) requireJson(request);
      },
    },
  });
}

/** A route on one workspace: `/admin/workspaces/:key/…`. */
export const WorkspaceParams = z.object({ key: z.string() });

/**
 * The options of an admin route on one workspace that takes no other param. A new object for each
 * route: Elysia writes a macro's hooks into the options it is handed, so options shared between
 * routes (or apps) would carry one app's credential check into another's.
 */
export const onWorkspaceRoute = () => ({ admin: true, params: WorkspaceParams }) as const;

/** A handler on one workspace: 404 unless it exists, then `fn`'s answer as JSON. */
export const onWorkspace =
  (services: WorkspaceLookup, fn: (key: string) => unknown) =>
  async ({ params }: { params: { key: string } }) =>
    json(await fn(await requireWorkspace(services, params.key)));

/** 404 `no workspace <key>` unless the workspace exists. */
export async function requireWorkspace(services: WorkspaceLookup, key: string): Promise<string> {
  if (!(await workspaceExists(services, key))) throw noWorkspace(key);
  return key;
}

/** The 404 of a workspace that is not there. */
export const noWorkspace = (key: string) => notFound(`no workspace ${key}`);

/** Whether `key` is a workspace: its record in the store, or its folder under DATA_DIR/sessions. */
export async function workspaceExists(services: WorkspaceLookup, key: string): Promise<boolean> {
  if (!isWorkspaceName(key)) return false;
  return (await services.store.get(key)) !== null || hasFolder(services, key);
}

/** Whether `key` (a workspace name) has its folder under DATA_DIR/sessions, record or not. */
export function hasFolder(services: WorkspaceLookup, key: string): boolean {
  const dir = services.config.data.dir;
  return dir !== null && existsSync(join(dir, "sessions", key));
}
