// The site-data capability as the registry lists it: its action (save_site_data) and resources, its
// admin routes, its row part (history, saved sites and the secrets' revision), and the Site data and
// History tabs.

import { capability, tabsOver } from "../admin/capability.ts";
import { saveSiteData } from "./actions.ts";
import {
  clearHistory,
  clearSiteData,
  forgetSite,
  historyListing,
  siteDataListing,
  siteDataRoutes,
} from "./admin.ts";
import { HistoryPane } from "./history-view.tsx";
import { siteDataList, siteDataOne } from "./resources.ts";
import { siteDataRow } from "./rows.ts";
import { SiteDataPane } from "./view.tsx";

const tab = tabsOver(siteDataRow);

export const siteData = capability({
  name: "site-data",
  actions: [saveSiteData],
  resources: [siteDataList, siteDataOne],
  adminRoutes: siteDataRoutes,
  row: siteDataRow,
  tabs: [
    tab({
      slug: "site-data",
      label: "Site data",
      revFields: ["site_data_rev"],
      opens: true,
      load: siteDataListing,
      render: ({ workspace, data, rev, now, open }) => SiteDataPane({ workspace, data, rev, now, open }),
      ops: [
        { method: "DELETE", path: [], run: clearSiteData },
        { method: "DELETE", path: [":host"], run: (s, k, p) => forgetSite(s, k, p.host!) },
      ],
    }),
    tab({
      slug: "history",
      label: "History",
      // A History row shows what is saved there and the secrets allowed there.
      revFields: ["history_rev", "site_data_rev", "secrets_rev"],
      load: historyListing,
      render: ({ workspace, data, rev, now }) => HistoryPane({ workspace, data, rev, now }),
      ops: [{ method: "DELETE", path: [], run: clearHistory }],
    }),
  ],
});
