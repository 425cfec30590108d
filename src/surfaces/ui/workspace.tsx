// A workspace: its card at the top, its live screen, the tabs its capabilities draw (the registry's
// TABS, handed in), and a pane per tab. Each pane loads its own fragment, and reloads when a pushed
// row moves its revision (see liveMessage); a tab with a reloader (the Timeline) loads only its newer
// entries.

import { Asking, TakeOver, waitingOf } from "../../person/view.tsx";
import { LiveScreen } from "../../timeline/view.tsx";
import { PageShell } from "../../views/layout.tsx";
import { attr, Confirm, ErrorNotice, Opens } from "../../views/parts.tsx";
import { paneUrl, type TabFace, workspaceUrl } from "../../views/urls.ts";
import type { Row } from "./row.ts";
import { byId, LastPage, Pills } from "./workspaces.tsx";

// A tab's ids in the page, from its slug: site-data → paneSiteData, tabSiteData, siteDataTotal.
const pascal = (slug: string) =>
  slug
    .split("-")
    .map((w) => (w[0]?.toUpperCase() ?? "") + w.slice(1))
    .join("");
export const paneId = (slug: string) => `pane${pascal(slug)}`;
const tabId = (slug: string) => `tab${pascal(slug)}`;
export const totalId = (slug: string) => {
  const id = pascal(slug);
  return `${id[0]?.toLowerCase()}${id.slice(1)}Total`;
};

/** A pane's revision in a row, hashed into an attribute-safe token; "" when the row lacks it. */
export function paneRev(row: object, tab: Pick<TabFace, "revFields">): string {
  const fields = tab.revFields;
  if (!((fields[0] as string) in row)) return "";
  const values = row as Record<string, unknown>;
  return Bun.hash(JSON.stringify(fields.map((f) => values[f] ?? null))).toString(36);
}

/**
 * Loads the pane's fragment into the pane as soon as it is in the page. A newer load of the same
 * pane aborts one still in flight, so a fragment read before the latest push never lands over it.
 */
export function Loader(props: { workspace: string; tab: string; query?: string }): JSX.Element {
  return (
    <i
      hidden
      data-rev=""
      hx-get={attr(paneUrl(props.workspace, props.tab) + (props.query ?? ""))}
      hx-trigger="load"
      hx-target={`#${paneId(props.tab)}`}
      hx-sync={`#${paneId(props.tab)}:replace`}
    />
  );
}

/** The workspace's head; after End, `error` says why it failed, and without a row the head is empty. */
export function WorkspaceHead(props: { row: Row | null; error?: string | null }): JSX.Element {
  const { row } = props;
  const error = props.error ? <ErrorNotice error={props.error} /> : "";
  if (!row)
    return (
      <header class="card workspace" id="wsHead">
        {error}
      </header>
    );
  return (
    <header class="card workspace" id="wsHead">
      <div class="head">
        <h1 safe>{row.key}</h1>
        <Pills row={row} />
        <span class="actions">
          {row.live === true ? (
            <button
              type="button"
              hx-post={attr(`${workspaceUrl(row.key)}/end`)}
              hx-target="#wsHead"
              hx-swap="outerHTML"
            >
              End browser
            </button>
          ) : (
            ""
          )}
          <Opens dialog="forgetWorkspaceConfirm">Forget</Opens>
        </span>
      </div>
      <LastPage row={row} />
      {error}
    </header>
  );
}

export function WorkspacePage(props: {
  row: Row;
  /** The open tab's slug. */
  tab: string;
  tabs: readonly TabFace[];
  /** A host (Site data) or flow (Flows) to open, from the URL. */
  item?: string | null;
  signOut: boolean;
}): string {
  const { row, tab } = props;
  const key = row.key;
  return PageShell({
    title: key,
    section: "workspaces",
    signOut: props.signOut,
    children: (
      <>
        <WorkspaceHead row={row} />
        <Asking row={row} />
        <TakeOver row={row} />
        <LiveScreen live={row.live === true} />
        <Confirm
          id="forgetWorkspaceConfirm"
          title="Forget workspace"
          body={key}
          pairs={[{ fate: "goes", text: "browser · history · site data · timeline" }]}
          verb="Forget"
          action={{ method: "delete", url: workspaceUrl(key), target: "#wsHead" }}
        />
        <div id="sessionTabs" role="tablist">
          {props.tabs.map(({ slug, label }) => (
            <a
              role="tab"
              id={tabId(slug)}
              href={attr(workspaceUrl(key, slug))}
              aria-selected={String(slug === tab)}
              aria-controls={paneId(slug)}
            >
              {label}
              <span class="count" id={totalId(slug)} />
            </a>
          ))}
        </div>
        {props.tabs.map(({ slug }) => (
          <div
            id={paneId(slug)}
            class="pane"
            role="tabpanel"
            aria-labelledby={tabId(slug)}
            hidden={slug !== tab}
          >
            <Loader
              workspace={key}
              tab={slug}
              query={slug === tab && props.item ? `?open=${encodeURIComponent(props.item)}` : ""}
            />
            <p class="empty">Loading…</p>
          </div>
        ))}
        <div hx-sse:connect={attr(`/ui/events?workspace=${encodeURIComponent(key)}`)} hidden />
      </>
    ),
  });
}

/**
 * The SSE message for a workspace page when its row is pushed: the card repainted, and for each
 * pane whose shown revision differs from the row's (or that shows none: loading, or failed), a
 * loader swapped over its revision marker. The selector matches only a stale marker, so a pane at
 * the same revision is left alone.
 */
export function liveMessage(row: Row, tabs: readonly TabFace[]): string {
  const parts: JSX.Element[] = [];
  if (row.gone) {
    parts.push(
      <tag of="hx-partial" hx-target="#wsHead" hx-swap="outerHTML">
        <header class="card workspace" id="wsHead">
          <p class="empty error" safe>{`no workspace ${row.key}`}</p>
        </header>
      </tag>,
    );
  } else {
    parts.push(
      <tag of="hx-partial" hx-target="#wsHead" hx-swap="outerHTML">
        <WorkspaceHead row={row} />
      </tag>,
    );
    // The question is repainted only when it changes, so an answer being typed is not wiped.
    const asked = waitingOf(row);
    parts.push(
      <tag
        of="hx-partial"
        hx-target={attr(asked ? `#wsAsk:not([data-since="${asked.since}"])` : "#wsAsk:not([hidden])")}
        hx-swap="outerHTML"
      >
        <Asking row={row} />
      </tag>,
    );
    for (const t of tabs) {
      const rev = paneRev(row, t);
      const stale = rev ? `:not([data-rev="${rev}"])` : "";
      parts.push(
        <tag
          of="hx-partial"
          hx-target={attr(`${byId(paneId(t.slug))} > [data-rev]${stale}`)}
          hx-swap="outerHTML"
        >
          {t.reloader ? t.reloader(row.key) : <Loader workspace={row.key} tab={t.slug} />}
        </tag>,
      );
    }
  }
  return parts
    .map((p) => {
      if (typeof p !== "string") throw new Error("a view rendered asynchronously");
      return p;
    })
    .join("");
}
