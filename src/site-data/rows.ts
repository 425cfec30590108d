// The site data, history and secrets fields of the admin's workspace row.
import type { RowContext } from "../admin/rows.ts";
import { hostOfUrl } from "../store/record.ts";
import type { SiteDataNeeds } from "./admin.ts";
import { siteListing } from "./by-host.ts";

/** History fields: distinct hosts, and a revision over every entry's origin and URL (not the clock). */
const historyPart = ({ record }: RowContext<SiteDataNeeds>) => {
  const history = record?.history ?? [];
  return {
    history_count: new Set(history.map((v) => hostOfUrl(v.origin))).size,
    history_rev: JSON.stringify(history.map((v) => [v.origin, v.url])),
  };
};

/** How many hosts are saved, and a revision a save (its time) or a Forget/Clear (its hosts) moves. */
const siteDataPart = ({ record }: RowContext<SiteDataNeeds>) => {
  const listed = siteListing(record?.site_data, record?.history ?? []);
  return {
    site_data_count: listed.sites.length,
    site_data_rev: JSON.stringify([listed.saved_at, listed.sites.map((s) => s.site)]),
  };
};

/** The secrets catalogue's revision, so History repaints when a secret is added, removed or re-leashed. */
const secretsPart = ({ services }: RowContext<SiteDataNeeds>) => ({
  secrets_rev: String(services.secrets.rev),
});

/** The capability's part of the row, in that order. */
export const siteDataRow = (ctx: RowContext<SiteDataNeeds>) => ({
  ...historyPart(ctx),
  ...siteDataPart(ctx),
  ...secretsPart(ctx),
});
