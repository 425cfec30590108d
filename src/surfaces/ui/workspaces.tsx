// The Workspaces page: one live card per workspace, repainted over SSE without a reload.
import { plural } from "../../views/format.ts";
import { PageShell } from "../../views/layout.tsx";
import { attr } from "../../views/parts.tsx";
import { workspaceUrl } from "../../views/urls.ts";
import type { Row } from "./row.ts";

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** A row's counts: `6 screenshots · 2 recordings · 2 files`; zeros left out. */
export function countsText(row: Record<string, unknown>): string {
  const counts = (typeof row.counts === "object" && row.counts !== null ? row.counts : row) as Record<
    string,
    unknown
  >;
  const parts: string[] = [];
  for (const [field, word] of [
    ["screenshots", "screenshot"],
    ["recordings", "recording"],
    ["files", "file"],
    ["downloads", "download"],
    ["flows", "flow"],
  ] as const) {
    const n = num(counts[field]);
    if (n > 0) parts.push(plural(n, word));
  }
  return parts.join(" · ");
}

export const cardId = (key: string) => `ws-${key}`;

/** A CSS selector for the element with this id (ids here may hold dots). */
export const byId = (id: string) => `[id="${id.replace(/["\\]/g, "\\$&")}"]`;

/** The live/idle pill, then `● REC` while the browser is being recorded. */
export function Pills(props: { row: Row }): JSX.Element {
  const live = props.row.live === true;
  return (
    <>
      <span class={`pill ${live ? "live" : "idle"}`}>{live ? "live" : "idle"}</span>
      {live && props.row.recording === true ? <span class="pill rec">● REC</span> : ""}
    </>
  );
}

/** The last page, or the card's words for none. */
export function LastPage(props: { row: Row }): JSX.Element {
  const url = typeof props.row.url === "string" && props.row.url ? props.row.url : null;
  return url ? (
    <p class="page clip" title={attr(url)} safe>
      {url}
    </p>
  ) : (
    <p class="page muted">Nowhere yet.</p>
  );
}

export function Card(props: { row: Row }): JSX.Element {
  const { row } = props;
  const waiting = row.waiting ?? null;
  return (
    <article class={waiting ? "card waiting" : "card"} id={attr(cardId(row.key))}>
      <div class="head">
        <a class="title" href={attr(workspaceUrl(row.key))} safe>
          {row.key}
        </a>
        <Pills row={row} />
      </div>
      {waiting ? (
        <p class="asks">
          <strong>Asks:</strong> <span safe>{waiting.question}</span>
        </p>
      ) : (
        ""
      )}
      <LastPage row={row} />
      <p class="muted counts" safe>
        {countsText(row)}
      </p>
    </article>
  );
}

export function WorkspacesPage(props: { rows: Row[] | null; error?: string; signOut: boolean }): string {
  return PageShell({
    title: "Workspaces",
    section: "workspaces",
    signOut: props.signOut,
    children: (
      <>
        <h1>Workspaces</h1>
        {props.error ? (
          <p class="empty error" safe>
            {props.error}
          </p>
        ) : (
          ""
        )}
        <div id="cards" class="cards">
          {(props.rows ?? []).map((row) => (
            <Card row={row} />
          ))}
        </div>
        <div hx-sse:connect="/ui/events" hidden />
      </>
    ),
  });
}

/** The SSE message for the Workspaces page: the card put in its place, or taken away when gone. */
export function cardMessage(row: Row): string {
  const out = row.gone ? (
    <tag of="hx-partial" hx-target={attr(byId(cardId(row.key)))} hx-swap="delete" />
  ) : (
    <tag of="hx-upsert" hx-target="#cards" sort="">
      <Card row={row} />
    </tag>
  );
  if (typeof out !== "string") throw new Error("a view rendered asynchronously");
  return out;
}
