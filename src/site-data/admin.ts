// The admin's Site data and History, per workspace: read, Forget one host, Clear. Each is built
// per request from the record (and, for History, the secrets catalogue). Clears and Forget change
// the store only, never the live browser.
import { Elysia } from "elysia";
import { guarded, requireWorkspace } from "../admin/guard.ts";
import { notFound } from "../errors.ts";
import { json } from "../http/json.ts";
import { matchingSecrets } from "../secrets/catalogue.ts";
import type { Services } from "../services.ts";
import { historyCleared, withSiteData } from "../store/record.ts";
import { type Forgotten, forget, historyHosts, historyView, view, views } from "./views.ts";

type Ctx = { request: Request; params: { key: string; site?: string } };

export function siteDataRoutes(services: Services) {
  const secretsFor = (host: string) => matchingSecrets(services.secrets, host);
  return new Elysia({ name: "admin-site-data" })
    .get(
      "/admin/workspaces/:key/site-data",
      guarded(services, async ({ params }: Ctx) => {
        const key = await requireWorkspace(services, params.key);
        const record = await services.store.get(key);
        const { listing, details } = views(record?.site_data, record?.history ?? []);
        return json({ key, ...listing, details });
      }),
    )
    .delete(
      "/admin/workspaces/:key/site-data",
      guarded(services, async ({ params }: Ctx) => {
        const key = await requireWorkspace(services, params.key);
        let cleared: string[] = [];
        await services.store.update(key, (r) => {
          cleared = [];
          if (!r) return null;
          cleared = view(r.site_data, r.history).sites.map((s) => s.site);
          return Object.keys(r.site_data).length ? withSiteData(r, {}) : null;
        });
        services.events.changed(key);
        return json({ cleared });
      }),
    )
    .delete(
      "/admin/workspaces/:key/site-data/:site",
      guarded(services, async ({ params }: Ctx) => {
        const key = await requireWorkspace(services, params.key);
        const site = (params.site ?? "").toLowerCase();
        let removed: Forgotten | null = null;
        await services.store.update(key, (r) => {
          removed = null;
          if (!r) return null;
          const out = forget(r.site_data, site);
          removed = out.removed;
          return removed ? withSiteData(r, out.left) : null;
        });
        if (!removed) throw notFound(`no saved site data for ${site}`);
        services.events.changed(key);
        return json({ forgotten: removed });
      }),
    )
    .get(
      "/admin/workspaces/:key/history",
      guarded(services, async ({ params }: Ctx) => {
        const key = await requireWorkspace(services, params.key);
        const record = await services.store.get(key);
        return json({ key, ...historyView(record?.history ?? [], record?.site_data, secretsFor) });
      }),
    )
    .delete(
      "/admin/workspaces/:key/history",
      guarded(services, async ({ params }: Ctx) => {
        const key = await requireWorkspace(services, params.key);
        let cleared: string[] = [];
        await services.store.update(key, (r) => {
          cleared = [];
          if (!r) return null;
          const kept = historyHosts(r.history.slice(0, 1));
          cleared = historyHosts(r.history).filter((h) => !kept.includes(h));
          return r.history.length > 1 ? historyCleared(r) : null;
        });
        services.events.changed(key);
        return json({ cleared });
      }),
    );
}
