// The admin's JSON API under /admin (token or the admin cookie). Capabilities add their own
// routes under /admin/workspaces/{key}/… (src/registry.ts lists them); this file holds the core.
import { Elysia, sse } from "elysia";
import { z } from "zod";
import { endWorkspace, forgetWorkspace, settingsList } from "../admin/core.ts";
import { adminGuard, onWorkspace, onWorkspaceRoute } from "../admin/guard.ts";
import { json } from "../http/json.ts";
import { isWorkspaceName } from "../kit/names.ts";
import { capabilityRoutes, existingWorkspaceRow, workspaceRows } from "../registry.ts";
import type { Services } from "../services.ts";
import type { FeedEvent, Feeds } from "./feed.ts";

/**
 * ?watch=<key>: the stream also carries that workspace's live screen, about once a second, and
 * while it is open the workspace counts as watched (its calls keep screens).
 */
const EventsQuery = z.object({
  watch: z
    .string({ error: "watch must be a workspace's name" })
    .refine(isWorkspaceName, "watch must be a workspace's name")
    .optional(),
});

/** A feed event as the JSON stream's message (`event: workspace|heartbeat|screen`). */
function message(event: FeedEvent, watch: string | null) {
  if ("row" in event) return sse({ event: "workspace", data: event.row });
  if ("beat" in event) return sse({ event: "heartbeat", data: { at: event.beat } });
  const frame = event.screen;
  return sse({
    event: "screen",
    data: frame.live
      ? { key: watch, live: true, jpeg: Buffer.from(frame.jpeg).toString("base64") }
      : { key: watch, live: false, ...(frame.hidden ? { hidden: true } : {}) },
  });
}

export function adminRoutes(services: Services, feeds: Feeds) {
  const on = (fn: (key: string) => unknown) => onWorkspace(services, fn);
  return new Elysia({ name: "admin" })
    .use(adminGuard(services))
    .use(capabilityRoutes(services))
    .get("/admin/workspaces", async () => json({ workspaces: await workspaceRows(services) }), {
      admin: true,
    })
    .get(
      "/admin/workspaces/:key",
      async ({ params }) => json(await existingWorkspaceRow(services, params.key)),
      onWorkspaceRoute(),
    )
    .post(
      "/admin/workspaces/:key/end",
      on((key) => endWorkspace(services, key)),
      onWorkspaceRoute(),
    )
    .delete(
      "/admin/workspaces/:key",
      on((key) => forgetWorkspace(services, key)),
      onWorkspaceRoute(),
    )
    .get("/admin/settings", () => json({ settings: settingsList(services) }), { admin: true })
    .get("/admin/secrets", () => json({ secrets: services.secrets.list(), rev: services.secrets.rev }), {
      admin: true,
    })
    .get("/admin/activity", () => json({ calls: services.activity.list() }), { admin: true })
    .get(
      "/admin/events",
      async function* ({ query, request, set }) {
        feeds.room();
        set.headers["content-type"] = "text/event-stream; charset=utf-8";
        set.headers["cache-control"] = "no-store";
        set.headers.connection = "keep-alive";
        const watch = query.watch ?? null;
        for await (const event of feeds.events(watch, request.signal)) yield message(event, watch);
      },
      { admin: true, query: EventsQuery },
    );
}
