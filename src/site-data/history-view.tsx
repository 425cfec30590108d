// The History tab (docs/skill/references/SITE_DATA.md): one row per host, current first; the secrets
// allowed there inside; a pill to the host's Site data; Clear with its confirm.
import { ago, plural } from "../views/format.ts";
import { attr, Confirm, Fold, Opens, Rev, Total } from "../views/parts.tsx";
import { paneUrl, workspaceUrl } from "../views/urls.ts";
import type { HistoryRow as FullHistoryRow } from "./by-host.ts";

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** The saved pill of a History row: `2 cookies · 2 local`, zero counts left out. */
export function savedText(saved: { cookies?: number; local?: number; session?: number }): string {
  const parts: string[] = [];
  if (num(saved.cookies) > 0) parts.push(plural(num(saved.cookies), "cookie"));
  if (num(saved.local) > 0) parts.push(`${num(saved.local)} local`);
  if (num(saved.session) > 0) parts.push(`${num(saved.session)} session`);
  return parts.join(" · ");
}

export interface SecretLine {
  name: string;
  description?: string;
  keys?: string[];
  allowed_urls?: string[];
}

export type HistoryRow = Omit<FullHistoryRow, "secrets"> & { secrets: SecretLine[] };

export interface HistoryPayload {
  sites: HistoryRow[];
  /** The origins a Clear removes (every entry but the top one). */
  clears?: string[];
}

/** A secret as the Secrets page draws it: `🔑 name`, its description, a pill per key name. */
export function SecretItem(props: { secret: SecretLine; hosts?: boolean }): JSX.Element {
  const s = props.secret;
  const allowed = s.allowed_urls ?? [];
  return (
    <div class="line secret">
      <span class="key" safe>{`🔑 ${s.name}`}</span>
      <span class="muted" safe>
        {s.description ?? ""}
      </span>
      {(s.keys ?? []).map((k) => (
        <span class="pill" safe>
          {k}
        </span>
      ))}
      {props.hosts ? (
        <span class="muted hosts" safe>
          {allowed.length ? allowed.join(" · ") : "anywhere"}
        </span>
      ) : (
        ""
      )}
    </div>
  );
}

/** `1m ago · 1 secret`; the secrets are left out when there are none. */
function visitMeta(row: HistoryRow, now: number): string {
  const when = ago(row.at, now);
  return row.secrets.length ? `${when} · ${plural(row.secrets.length, "secret")}` : when;
}

const visitRowId = (key: string, host: string) => `visit-${key}:${host}`;

export function HistoryPane(props: {
  workspace: string;
  data: HistoryPayload;
  rev: string;
  now: number;
}): JSX.Element {
  const { workspace, data } = props;
  const rows = data.sites;
  const total = <Total id="historyTotal" n={rows.length} oob />;
  if (!rows.length) {
    return (
      <>
        <Rev rev={props.rev} />
        <p class="empty">Nowhere yet.</p>
        {total}
      </>
    );
  }
  // Clear is offered while the history holds anything but the current origin.
  const goes = data.clears ?? rows.slice(1).map((r) => r.site);
  const current = rows[0] as HistoryRow;
  const url = paneUrl(workspace, "history");
  return (
    <>
      <Rev rev={props.rev} />
      {goes.length ? (
        <div class="bar">
          <span />
          <Opens id="clearHistory" dialog="clearHistoryConfirm">
            Clear
          </Opens>
        </div>
      ) : (
        ""
      )}
      {rows.map((row, i) => (
        <Fold
          id={visitRowId(workspace, row.site)}
          open={i === 0}
          foldable={row.secrets.length > 0}
          title={<span safe>{row.url}</span>}
          meta={
            <>
              <span class="muted" safe>
                {visitMeta(row, props.now)}
              </span>
              {row.saved && savedText(row.saved) ? (
                <a class="pill link" href={attr(workspaceUrl(workspace, "site-data", row.site))} safe>
                  {savedText(row.saved)}
                </a>
              ) : (
                ""
              )}
            </>
          }
        >
          {row.secrets.map((s) => (
            <SecretItem secret={s} />
          ))}
        </Fold>
      ))}
      {goes.length ? (
        <Confirm
          id="clearHistoryConfirm"
          title="Clear history"
          body="History only: site data and the browser are untouched."
          pairs={[
            { fate: "goes", text: goes.join(" · ") },
            { fate: "stays", text: `${current.site}, the current site` },
          ]}
          verb="Clear"
          action={{ method: "delete", url, target: "#paneHistory" }}
        />
      ) : (
        ""
      )}
      {total}
    </>
  );
}
