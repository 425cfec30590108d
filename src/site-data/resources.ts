// workspace://site-data and workspace://site-data/{site}: what the last save holds. They read the
// record only; reading never opens a browser.
import { SITE_DATA_URI } from "../actions/fields.ts";
import { defineResource } from "../actions/resource.ts";
import { notFound } from "../errors.ts";
import type { RecordStore } from "../store/types.ts";
import { siteDetail, siteListing } from "./by-host.ts";
import { SiteDataShape, SiteList } from "./schemas.ts";

export const siteDataList = defineResource<{ readonly store: Pick<RecordStore, "get"> }>({
  uri: SITE_DATA_URI,
  name: "site-data",
  title: "Saved site data",
  description: [
    "What this workspace's last save_site_data holds: one entry per site with counts, never a value, the sites it went to first, and saved_at.",
    "Every browser this workspace opens has it back before open_session returns.",
    `${SITE_DATA_URI}/{site} shows one site in full. Reading this never opens a browser.`,
  ].join(" "),
  http: "/site-data",
  output: SiteList,
  read: async (services, workspace) => {
    const record = await services.store.get(workspace);
    return siteListing(record?.site_data, record?.history ?? []);
  },
});

export const siteDataOne = defineResource<{ readonly store: Pick<RecordStore, "get"> }>({
  uri: `${SITE_DATA_URI}/{site}`,
  name: "site-data-site",
  title: "One saved site",
  description:
    "One site of the last save in full: its cookies (an httpOnly value reads •••), its localStorage and sessionStorage per origin, own_cookies and kept_shared. Reading this never opens a browser.",
  http: "/site-data/{site}",
  output: SiteDataShape,
  read: async (services, workspace, params) => {
    const site = params.site ?? "";
    const record = await services.store.get(workspace);
    const found = siteDetail(record?.site_data, site);
    // An unknown site is an unknown thing (404), `__proto__` and `constructor` included.
    if (!found) throw notFound(`no saved data for '${site}': ${SITE_DATA_URI} lists them`);
    return found;
  },
});
