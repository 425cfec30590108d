// The Site data tab (docs/skill/references/SITE_DATA.md): one fold per host, Forget and Clear confirms.
import { ago, plural } from "../views/format.ts";
import { attr, Confirm, Fold, Opens, type Pair, Rev, type Slice, Total } from "../views/parts.tsx";
import { paneUrl } from "../views/urls.ts";
import type {
  CookieDetail as FullCookie,
  SiteDetail as FullSiteDetail,
  SiteRow as FullSiteRow,
} from "./by-host.ts";

/** A cookie's expiry as a date (`2026-12-01`), or `session` when it has none. */
export function expiryText(expiry: number | null | undefined): string {
  if (typeof expiry !== "number" || !Number.isFinite(expiry)) return "session";
  const d = new Date(expiry * 1000);
  return Number.isNaN(d.getTime()) ? "session" : d.toISOString().slice(0, 10);
}

export type CookieView = Slice<FullCookie, "name" | "value" | "domain">;
export type SiteRow = Pick<FullSiteRow, "site" | "cookies" | "storage">;
export type SiteDetail = Omit<FullSiteDetail, "uri" | "cookies"> & { cookies: CookieView[] };

export interface SiteDataPayload {
  sites: SiteRow[];
  saved_at: number | null;
  details: Record<string, SiteDetail>;
}

const PANE = "#paneSiteData";

/** The row's title: its origin when it has exactly one, else the host. */
function siteTitle(row: SiteRow): string {
  return row.storage.length === 1 ? (row.storage[0]?.origin ?? row.site) : row.site;
}

/** `2 cookies · 2 local · 0 session`, or just `3 cookies` for a cookie-only host. */
function siteCounts(row: SiteRow): string {
  const cookies = plural(row.cookies, "cookie");
  if (!row.storage.length) return cookies;
  const local = row.storage.reduce((n, s) => n + s.local_storage, 0);
  const session = row.storage.reduce((n, s) => n + s.session_storage, 0);
  const records = row.storage.reduce((n, s) => n + (s.indexeddb?.records ?? 0), 0);
  const dbs = row.storage.reduce((n, s) => n + (s.indexeddb?.databases ?? 0), 0);
  const idb = dbs ? ` · ${plural(dbs, "database")}, ${plural(records, "record")}` : "";
  return `${cookies} · ${local} local · ${session} session${idb}`;
}

/** One origin's databases: each store with its key path and records, key beside value. */
function Databases(props: { dbs: NonNullable<SiteDetail["storage"][number]["indexeddb"]> }): JSX.Element {
  return (
    <>
      {props.dbs.map((d) => (
        <>
          <p class="muted" safe>
            {`${d.name} · version ${d.version}`}
          </p>
          {d.stores.map((st) => (
            <>
              <div class="line">
                <code class="key" safe>
                  {st.name}
                </code>
                <span class="muted" safe>
                  {[
                    st.key_path === null ? "out-of-line keys" : `key ${JSON.stringify(st.key_path)}`,
                    st.auto_increment ? "autoIncrement" : "",
                    ...st.indexes.map((i) => `index ${i.name}${i.unique ? " unique" : ""}`),
                    plural(st.records.length, "record"),
                  ]
                    .filter(Boolean)
                    .join(" · ")}
                </span>
              </div>
              <Items items={Object.fromEntries(st.records.map((r) => [r.key, r.value]))} />
            </>
          ))}
        </>
      ))}
    </>
  );
}

/** What Forget takes (own cookies, then every storage key once) and the shared cookies it keeps. */
function forgetPairs(detail: SiteDetail | undefined): Pair[] {
  if (!detail) return [];
  const goes = new Set<string>(detail.own_cookies);
  for (const s of detail.storage) {
    for (const k of Object.keys(s.local_storage)) goes.add(k);
    for (const k of Object.keys(s.session_storage)) goes.add(k);
  }
  const pairs: Pair[] = goes.size ? [{ fate: "goes", text: [...goes].join(" · ") }] : [];
  for (const c of detail.kept_shared) {
    pairs.push({
      fate: "stays",
      text: `${c.name}, shared with ${c.domain}${c.path && c.path !== "/" ? ` ${c.path}` : ""}`,
    });
  }
  return pairs;
}

function Items(props: { items: Record<string, string> }): JSX.Element {
  const entries = Object.entries(props.items);
  if (!entries.length) return <p class="none">none</p>;
  return (
    <>
      {entries.map(([k, v]) => (
        <div class="line">
          <code class="key" safe>
            {k}
          </code>
          <span class="value clip" title={attr(v)} safe>
            {v}
          </span>
        </div>
      ))}
    </>
  );
}

function Detail(props: { detail: SiteDetail | undefined }): JSX.Element {
  const d = props.detail;
  const cookies = d?.cookies ?? [];
  const storage = d?.storage.length ? d.storage : [{ origin: "", local_storage: {}, session_storage: {} }];
  const suffix = (origin: string) => (storage.length > 1 ? ` · ${origin}` : "");
  return (
    <>
      <h3>Cookies</h3>
      {cookies.length ? (
        cookies.map((c) => (
          <div class="line cookie">
            <code class="key" safe>
              {c.name}
            </code>
            <span class="value clip" title={attr(c.value)} safe>
              {c.value}
            </span>
            <span class="muted" safe>
              {`${c.domain} · ${expiryText(c.expiry)}`}
            </span>
            {c.http_only ? <span class="pill">httpOnly</span> : ""}
            {c.secure ? <span class="pill">secure</span> : ""}
            {c.shared ? <span class="pill shared">shared</span> : ""}
          </div>
        ))
      ) : (
        <p class="none">none</p>
      )}
      {storage.map((s) => (
        <>
          <h3 safe>{`Local storage${suffix(s.origin)}`}</h3>
          <Items items={s.local_storage} />
          <h3 safe>{`Session storage${suffix(s.origin)}`}</h3>
          <Items items={s.session_storage} />
          {"indexeddb" in s && s.indexeddb?.length ? (
            <>
              <h3 safe>{`IndexedDB${suffix(s.origin)}`}</h3>
              <Databases dbs={s.indexeddb} />
            </>
          ) : (
            ""
          )}
        </>
      ))}
    </>
  );
}

const siteRowId = (key: string, host: string) => `site-${key}:${host}`;

/**
 * The pane's content. `open` names a host linked from History: its row opens and scrolls into view.
 * The first row is drawn open, the rest shut; the reader's folds are kept by static/ui.js.
 */
export function SiteDataPane(props: {
  workspace: string;
  data: SiteDataPayload;
  rev: string;
  now: number;
  open?: string | null;
}): JSX.Element {
  const { workspace, data } = props;
  const total = <Total id="siteDataTotal" n={data.sites.length} oob />;
  if (!data.sites.length) {
    return (
      <>
        <Rev rev={props.rev} />
        <p>
          Nothing saved — an agent calls <code>save_site_data</code> after signing in.
        </p>
        {total}
      </>
    );
  }
  const url = paneUrl(workspace, "site-data");
  const hosts = data.sites.map((s) => s.site);
  return (
    <>
      <Rev rev={props.rev} />
      <div class="bar">
        {data.saved_at !== null ? (
          <span class="pill" safe>{`saved ${ago(data.saved_at, props.now)}`}</span>
        ) : (
          <span />
        )}
        <Opens id="clearSiteData" dialog="clearSiteDataConfirm">
          Clear
        </Opens>
      </div>
      {data.sites.map((row, i) => {
        const id = siteRowId(workspace, row.site);
        const title = siteTitle(row);
        const linked = props.open === row.site;
        return (
          <Fold
            id={id}
            open={linked || i === 0}
            linked={linked}
            title={<span safe>{title}</span>}
            meta={
              <span class="muted" safe>
                {siteCounts(row)}
              </span>
            }
            actions={<Opens dialog={`${id}Forget`}>Forget</Opens>}
          >
            <Detail detail={data.details[row.site]} />
          </Fold>
        );
      })}
      {data.sites.map((row) => {
        const id = siteRowId(workspace, row.site);
        return (
          <Confirm
            id={`${id}Forget`}
            title="Forget site data"
            body={`${siteTitle(row)} — a reopened browser comes back signed out here.`}
            pairs={forgetPairs(data.details[row.site])}
            verb="Forget"
            action={{ method: "delete", url: `${url}/${encodeURIComponent(row.site)}`, target: PANE }}
          />
        );
      })}
      <Confirm
        id="clearSiteDataConfirm"
        title="Clear site data"
        body={`${plural(hosts.length, "site")} — a reopened browser comes back signed out.`}
        pairs={[{ fate: "goes", text: hosts.join(" · ") }]}
        verb="Clear"
        action={{ method: "delete", url, target: PANE }}
      />
      {total}
    </>
  );
}
