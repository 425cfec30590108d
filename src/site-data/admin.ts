// The admin's Site data and History, per workspace: read, Forget one host, Clear. Each is built
// per request from the record (and, for History, the secrets catalogue). Clears and Forget change
// the store only, never the live browser. The JSON routes and the admin pages both call these.
import { Elysia } from "elysia";
import { type AdminNeeds, adminGuard, onWorkspace, onWorkspaceRoute } from "../admin/guard.ts";
import { notFound } from "../errors.ts";
import { matchingSecrets, type SecretCatalogue } from "../secrets/catalogue.ts";
import { historyCleared, type WorkspaceRecord, withSiteData } from "../store/record.ts";
import type { RecordStore } from "../store/types.ts";
import {
  type Forgotten,
  forget,
  historyHosts,
  historyRows,
  listingAndDetails,
  siteListing,
} from "./by-host.ts";

/** What the site-data capability's admin code, row part and resources are handed. */
export interface SiteDataNeeds extends AdminNeeds {
  readonly store: Pick<RecordStore, "get" | "keys" | "update">;
  /** The secrets, for History's column of which secret a host may take (and the row's revision). */
  readonly secrets: SecretCatalogue;
  readonly events: { changed(workspace: string): void };
}

/** The Site data pane: every saved host, and each one's details. */
export async function siteDataListing(services: SiteDataNeeds, key: string) {
  const record = await services.store.get(key);
  const { listing, details } = listingAndDetails(record?.site_data, record?.history ?? []);
  return { key, ...listing, details };
}

/** The History pane: every host visited, with what is saved for it and the secrets it may use. */
export async function historyListing(services: SiteDataNeeds, key: string) {
  const record = await services.store.get(key);
  const secretsFor = (host: string) => matchingSecrets(services.secrets, host);
  return { key, ...historyRows(record?.history ?? [], record?.site_data, secretsFor) };
}

/** A store change that says what it removed: `pick` gives the hosts and the record to write (null: none). */
async function clearing(
  services: SiteDataNeeds,
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
export const clearSiteData = (services: SiteDataNeeds, key: string) =>
  clearing(services, key, (r) => ({
    cleared: siteListing(r.site_data, r.history).sites.map((s) => s.site),
    next: Object.keys(r.site_data).length ? withSiteData(r, {}) : null,
  }));

/** Clear History: every entry but the top one. */
export const clearHistory = (services: SiteDataNeeds, key: string) =>
  clearing(services, key, (r) => {
    const kept = historyHosts(r.history.slice(0, 1));
    return {
      cleared: historyHosts(r.history).filter((h) => !kept.includes(h)),
      next: r.history.length > 1 ? historyCleared(r) : null,
    };
  });

/** Forget one site's saved data; 404 when nothing is saved for it. */
export async function forgetSite(
  services: SiteDataNeeds,
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

export function siteDataRoutes(services: SiteDataNeeds) {
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
