// The admin's JSON API under /admin (token or the admin cookie). Capabilities add their own
// routes under /admin/workspaces/{key}/… (src/registry.ts lists them); this file holds the core.
import { Elysia } from "elysia";
import { guarded, requireWorkspace } from "../admin/guard.ts";
import { settingsView } from "../config.ts";
import { badInput } from "../errors.ts";
import { log } from "../log.ts";
import { isWorkspaceName } from "../names.ts";
import { capabilityRoutes, workspaceExists, workspaceRow, workspaceRows } from "../registry.ts";
import type { Services } from "../services.ts";
import { json } from "./http.ts";

export { ADMIN_COOKIE } from "./admin-auth.ts";

const HEARTBEAT_MS = 15_000;

function sse(services: Services, request: Request): Response {
  const encoder = new TextEncoder();
  // ?watch=<key>: this stream also carries that workspace's live screen, about once a second, and
  // while it is open the workspace counts as watched (its calls keep screens).
  const watch = new URL(request.url).searchParams.get("watch");
  if (watch !== null && !isWorkspaceName(watch)) throw badInput("watch must be a workspace's name", "watch");
  let stop = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (event: string, data: unknown) => {
        try {
          controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
        } catch {
          stop();
        }
      };
      // Coalesce bursts: one row per workspace per tick.
      const pending = new Set<string>();
      let timer: ReturnType<typeof setTimeout> | null = null;
      const flush = async () => {
        timer = null;
        const keys = [...pending];
        pending.clear();
        const liveIds = await services.grid.sessions();
        for (const key of keys) {
          try {
            const exists = await workspaceExists(services, key);
            send("workspace", exists ? await workspaceRow(services, key, liveIds) : { key, gone: true });
          } catch (err) {
            log.warn(
              `admin events: a row for ${key} failed: ${err instanceof Error ? err.message : String(err)}`,
            );
          }
        }
      };
      const off = services.events.subscribe((key) => {
        pending.add(key);
        timer ??= setTimeout(flush, 50);
      });
      const beat = setInterval(() => send("heartbeat", { at: services.now() }), HEARTBEAT_MS);
      const unwatch = watch
        ? services.timeline.live.watch(watch, (frame) =>
            send(
              "screen",
              frame.live
                ? { key: watch, live: true, jpeg: Buffer.from(frame.jpeg).toString("base64") }
                : { key: watch, live: false, ...(frame.hidden ? { hidden: true } : {}) },
            ),
          )
        : () => {};
      stop = () => {
        off();
        unwatch();
        clearInterval(beat);
        if (timer) clearTimeout(timer);
      };
      request.signal.addEventListener("abort", () => {
        stop();
        try {
          controller.close();
        } catch {}
      });
      send("heartbeat", { at: services.now() });
    },
    cancel() {
      stop();
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
    },
  });
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
      guarded(services, async ({ params }: { request: Request; params: { key: string } }) => {
        const key = await requireWorkspace(services, params.key);
        return json(await workspaceRow(services, key, await services.grid.sessions()));
      }),
    )
    .post(
      "/admin/workspaces/:key/end",
      guarded(services, async ({ params }: { request: Request; params: { key: string } }) => {
        const key = await requireWorkspace(services, params.key);
        // A call stuck on a hanging Grid is stopped, not waited for.
        const out = await services.workspaces.interrupt(key);
        services.events.changed(key);
        return json(out);
      }),
    )
    .delete(
      "/admin/workspaces/:key",
      guarded(services, async ({ params }: { request: Request; params: { key: string } }) => {
        const key = await requireWorkspace(services, params.key);
        // A stopped call writes nothing afterwards: the record it would settle into is gone.
        await services.workspaces.interrupt(key);
        await services.store.delete(key);
        // The timeline lives as long as the record.
        await services.timeline.clear(key, "all");
        services.events.changed(key);
        return json({ forgotten: key });
      }),
    )
    .get(
      "/admin/settings",
      guarded(services, () =>
        json({
          settings: settingsView({
            config: services.config,
            sources: services.sources,
            cli: { help: false, stdio: false, workspace: "stdio", configFile: null },
          }),
        }),
      ),
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
