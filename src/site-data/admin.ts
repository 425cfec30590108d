// The admin's Site data and History, per workspace: read, Forget one host, Clear. Each is built
// per request from the record (and, for History, the secrets catalogue). Clears and Forget change
// the store only, never the live browser. The JSON routes and the admin pages both call these.
import { Elysia } from "elysia";
import { adminGuard, onWorkspace, onWorkspaceRoute } from "../admin/guard.ts";
import { notFound } from "../errors.ts";
import { matchingSecrets } from "../secrets/catalogue.ts";
import type { Services } from "../services.ts";
import { historyCleared, type WorkspaceRecord, withSiteData } from "../store/record.ts";
import {
  type Forgotten,
  forget,
  historyHosts,
  historyRows,
  listingAndDetails,
  siteListing,
} from "./by-host.ts";

/** The Site data pane: every saved host, and each one's details. */
export async function siteDataListing(services: Services, key: string) {
  const record = await services.store.get(key);
  const { listing, details } = listingAndDetails(record?.site_data, record?.history ?? []);
  return { key, ...listing, details };
}

/** The History pane: every host visited, with what is saved for it and the secrets it may use. */
export async function historyListing(services: Services, key: string) {
  const record = await services.store.get(key);
  const secretsFor = (host: string) => matchingSecrets(services.secrets, host);
  return { key, ...historyRows(record?.history ?? [], record?.site_data, secretsFor) };
}

/** A store change that says what it removed: `pick` gives the hosts and the record to write (null: none). */
async function clearing(
  services: Services,
  key: string,
  pick: (r: WorkspaceRecord) => { cleared: string[]; next: WorkspaceRecord | null },
): Promise<{ cleared: string[] }> {
  let cleared: string[] = [];
  await services.store.update(key, (r) => {
    cleared = [];
    if (!r) return null;
    const out = pick(r);
    cleared = out.cleared;
    return out.next;
  });
  services.events.changed(key);
  return { cleared };
}

/** Clear: every saved site's data goes. */
export const clearSiteData = (services: Services, key: string) =>
  clearing(services, key, (r) => ({
    cleared: siteListing(r.site_data, r.history).sites.map((s) => s.site),
    next: Object.keys(r.site_data).length ? withSiteData(r, {}) : null,
  }));

/** Clear History: every entry but the top one. */
export const clearHistory = (services: Services, key: string) =>
  clearing(services, key, (r) => {
    const kept = historyHosts(r.history.slice(0, 1));
    return {
      cleared: historyHosts(r.history).filter((h) => !kept.includes(h)),
      next: r.history.length > 1 ? historyCleared(r) : null,
    };
  });

/** Forget one site's saved data; 404 when nothing is saved for it. */
export async function forgetSite(
  services: Services,
  key: string,
  raw: string,
): Promise<{ forgotten: Forgotten }> {
  const site = raw.toLowerCase();
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
  return { forgotten: removed };
}

export function siteDataRoutes(services: Services) {
  const on = (fn: (key: string) => unknown) => onWorkspace(services, fn);
  return new Elysia({ name: "admin-site-data" })
    .use(adminGuard(services))
    .get(
      "/admin/workspaces/:key/site-data",
      on((key) => siteDataListing(services, key)),
      onWorkspaceRoute(),
    )
    .get(
      "/admin/workspaces/:key/history",
      on((key) => historyListing(services, key)),
      onWorkspaceRoute(),
    );
}
