// The admin's JSON API under /admin (token or the admin cookie). Capabilities add their own
// routes under /admin/workspaces/{key}/… (src/registry.ts lists them); this file holds the core.
import { Elysia } from "elysia";
import { endWorkspace, forgetWorkspace, settingsList } from "../admin/core.ts";
import { guarded, requireWorkspace } from "../admin/guard.ts";
import { badInput } from "../errors.ts";
import { json } from "../http/json.ts";
import { isWorkspaceName } from "../names.ts";
import { capabilityRoutes, workspaceRows, workspaceView } from "../registry.ts";
import type { Services } from "../services.ts";
import { feedRoom, openFeed, streamResponse } from "./feed.ts";

export { ADMIN_COOKIE } from "../admin/auth.ts";

function sse(services: Services, request: Request): Response {
  // ?watch=<key>: this stream also carries that workspace's live screen, about once a second, and
  // while it is open the workspace counts as watched (its calls keep screens).
  const watch = new URL(request.url).searchParams.get("watch");
  if (watch !== null && !isWorkspaceName(watch)) throw badInput("watch must be a workspace's name", "watch");
  feedRoom(services);
  return streamResponse(
    request,
    (write) => {
      const send = (event: string, data: unknown) =>
        write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      return openFeed(services, watch, {
        row: (row) => send("workspace", row),
        beat: (at) => send("heartbeat", { at }),
        screen: (frame) =>
          send(
            "screen",
            frame.live
              ? { key: watch, live: true, jpeg: Buffer.from(frame.jpeg).toString("base64") }
              : { key: watch, live: false, ...(frame.hidden ? { hidden: true } : {}) },
          ),
      });
    },
    {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
    },
  );
}

export function adminRoutes(services: Services) {
  return new Elysia({ name: "admin" })
    .use(capabilityRoutes(services))
    .get(
      "/admin/workspaces",
      guarded(services, async () => json({ workspaces: await workspaceRows(services) })),
    )
    .get(
      "/admin/workspaces/:key",
      guarded(services, async ({ params }: { request: Request; params: { key: string } }) =>
        json(await workspaceView(services, params.key)),
      ),
    )
    .post(
      "/admin/workspaces/:key/end",
      guarded(services, async ({ params }: { request: Request; params: { key: string } }) =>
        json(await endWorkspace(services, await requireWorkspace(services, params.key))),
      ),
    )
    .delete(
      "/admin/workspaces/:key",
      guarded(services, async ({ params }: { request: Request; params: { key: string } }) =>
        json(await forgetWorkspace(services, await requireWorkspace(services, params.key))),
      ),
    )
    .get(
      "/admin/settings",
      guarded(services, () => json({ settings: settingsList(services) })),
    )
    .get(
      "/admin/secrets",
      guarded(services, () => json({ secrets: services.secrets.list(), rev: services.secrets.rev })),
    )
    .get(
      "/admin/activity",
      guarded(services, () => json({ calls: services.activity.list() })),
    )
    .get(
      "/admin/events",
      guarded(services, ({ request }) => sse(services, request)),
    );
}
