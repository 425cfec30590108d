// A workspace: its card at the top, its live screen, the tabs Files · Flows · Site data · History ·
// Timeline, and a pane per tab. Each pane loads its own fragment, and reloads when a pushed row moves
// its revision (see liveMessage); the Timeline pane loads only its newer entries.

import { LiveScreen, TIMELINE_AFTER, TIMELINE_LIST, TIMELINE_REV } from "../src/timeline/view.tsx";
import { Page } from "./layout.tsx";
import type { Row } from "./models.ts";
import { attr, Confirm, Opens } from "./parts.tsx";
import { Asking, TakeOver, waitingOf } from "./person.tsx";
import { paneUrl, TABS, type Tab, workspaceUrl } from "./urls.ts";
import { byId, LastPage, Pills } from "./workspaces.tsx";

const TAB_LABEL: Record<Tab, string> = {
  files: "Files",
  flows: "Flows",
  "site-data": "Site data",
  history: "History",
  timeline: "Timeline",
};
const ID: Record<Tab, string> = {
  files: "Files",
  flows: "Flows",
  "site-data": "SiteData",
  history: "History",
  timeline: "Timeline",
};
export const paneId = (tab: Tab) => `pane${ID[tab]}`;
const tabId = (tab: Tab) => `tab${ID[tab]}`;
export const totalId = (tab: Tab) => `${ID[tab][0]?.toLowerCase()}${ID[tab].slice(1)}Total`;

/** What a pane shows changes when one of these row fields moves (the first one names the pane). */
export const REV_FIELDS: Record<Tab, readonly string[]> = {
  files: ["files_rev"],
  flows: ["flows_rev"],
  "site-data": ["site_data_rev"],
  // A History row shows what is saved there and the secrets allowed there.
  history: ["history_rev", "site_data_rev", "secrets_rev"],
  timeline: ["timeline_rev"],
};

/** A pane's revision in a row, hashed into an attribute-safe token; "" when the row lacks it. */
export function paneRev(row: Record<string, unknown>, tab: Tab): string {
  const fields = REV_FIELDS[tab];
  if (!((fields[0] as string) in row)) return "";
  return Bun.hash(JSON.stringify(fields.map((f) => row[f] ?? null))).toString(36);
}

/**
 * Loads the Timeline's entries newer than the page shows onto the top of its list (a page that shows
 * none yet, or a timeline cleared since, gets the whole pane back instead).
 */
export function NewerLoader(props: { workspace: string }): JSX.Element {
  return (
    <i
      hidden
      id={TIMELINE_REV}
      data-rev=""
      hx-get={attr(`${paneUrl(props.workspace, "timeline")}/newer`)}
      hx-include={`#${TIMELINE_AFTER}`}
      hx-trigger="load"
      hx-target={`#${TIMELINE_LIST}`}
      hx-swap="afterbegin"
    />
  );
}

/**
 * Loads the pane's fragment into the pane as soon as it is in the page. A newer load of the same
 * pane aborts one still in flight, so a fragment read before the latest push never lands over it.
 */
export function Loader(props: { workspace: string; tab: Tab; query?: string }): JSX.Element {
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

export function WorkspaceHead(props: { row: Row }): JSX.Element {
  const { row } = props;
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
    </header>
  );
}

export function WorkspacePage(props: {
  row: Row;
  tab: Tab;
  /** A host (Site data) or flow (Flows) to open, from the URL. */
  item?: string | null;
  signOut: boolean;
}): string {
  const { row, tab } = props;
  const key = row.key;
  return Page({
    title: key,
    section: "workspaces",
    signOut: props.signOut,
    children: (
      <>
        <WorkspaceHead row={row} />
        <Asking row={row} />
        <LiveScreen live={row.live === true} />
        <TakeOver row={row} />
        <Confirm
          id="forgetWorkspaceConfirm"
          title="Forget workspace"
          body={key}
          pairs={[{ fate: "goes", text: "browser · history · site data · timeline" }]}
          verb="Forget"
          action={{ method: "delete", url: workspaceUrl(key), target: "#wsHead" }}
        />
        <div id="sessionTabs" role="tablist">
          {TABS.map((t) => (
            <a
              role="tab"
              id={tabId(t)}
              href={attr(workspaceUrl(key, t))}
              aria-selected={String(t === tab)}
              aria-controls={paneId(t)}
            >
              {TAB_LABEL[t]}
              <span class="count" id={totalId(t)} />
            </a>
          ))}
        </div>
        {TABS.map((t) => (
          <div id={paneId(t)} class="pane" role="tabpanel" aria-labelledby={tabId(t)} hidden={t !== tab}>
            <Loader
              workspace={key}
              tab={t}
              query={t === tab && props.item ? `?open=${encodeURIComponent(props.item)}` : ""}
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
export function liveMessage(row: Row): string {
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
    for (const t of TABS) {
      const rev = paneRev(row, t);
      const stale = rev ? `:not([data-rev="${rev}"])` : "";
      parts.push(
        <tag of="hx-partial" hx-target={attr(`${byId(paneId(t))} > [data-rev]${stale}`)} hx-swap="outerHTML">
          {t === "timeline" ? <NewerLoader workspace={row.key} /> : <Loader workspace={row.key} tab={t} />}
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
