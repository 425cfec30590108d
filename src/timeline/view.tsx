// The Timeline tab and the live view, as the workspace page draws them. Entries come newest first
// with their screens as thumbnails (a click opens the large one in a dialog), status pills and
// errors in full. While the agent works, each push loads only the entries the page does not show
// yet and puts them on top, so a range being ticked stays ticked. Ticking entries and Save as
// flow keeps everything from the oldest ticked to the newest as a flow.

import { attr, Confirm, Opens, Total } from "../views/parts.tsx";
import { paneUrl, workspaceUrl } from "../views/urls.ts";
import type { ListedEntry, TimelineBatch } from "./entry.ts";

export const TIMELINE_LIST = "timelineList";
export const TIMELINE_AFTER = "timelineAfter";
export const TIMELINE_REV = "timelineRev";

/** The pane's revision marker, with an id so a load of newer entries can move it on. */
export function TimelineRev(props: { rev: string; oob?: boolean }): JSX.Element {
  return <i hidden id={TIMELINE_REV} data-rev={props.rev} hx-swap-oob={props.oob ? "true" : undefined} />;
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

/** What the page shows the newest of, so a push loads only what came after it. */
export function After(props: { last: number; oob?: boolean }): JSX.Element {
  return (
    <input
      type="hidden"
      id={TIMELINE_AFTER}
      name="after"
      value={String(props.last)}
      hx-swap-oob={props.oob ? "true" : undefined}
    />
  );
}

const clock = (t: number) => new Date(t * 1000).toISOString().slice(11, 19);

/** The arguments on one line: what was asked (a secret reads as its reference). */
const argsText = (args: Record<string, unknown>) => (Object.keys(args).length ? JSON.stringify(args) : "");

export function Entry(props: { entry: ListedEntry }): JSX.Element {
  const e = props.entry;
  const ok = e.status === 200;
  const box = `screen${e.n}`;
  const args = argsText(e.args);
  return (
    <li class={`entry${ok ? "" : " failed"}`} id={`entry${e.n}`}>
      <label class="pick" title="From or to">
        <input type="checkbox" name="entry" value={String(e.n)} />
        <span class="muted">{`#${e.n}`}</span>
      </label>
      {e.screen_url ? (
        <button type="button" class="thumb" commandfor={box} command="show-modal" title={`#${e.n}`}>
          <img src={attr(e.screen_url)} alt={`#${e.n}`} loading="lazy" />
        </button>
      ) : (
        <span class="thumb none" />
      )}
      <div class="what">
        <div class="head">
          <code class="tool" safe>
            {e.tool}
          </code>
          <span class={`pill ${ok ? "ok" : "failed"}`}>{ok ? "ok" : String(e.status)}</span>
          <span class="pill">{e.surface === "flow" && e.flow ? `flow ${e.flow}` : e.surface}</span>
          <span class="muted">{`${e.ms} ms`}</span>
          <time class="muted" datetime={new Date(e.time * 1000).toISOString()}>
            {clock(e.time)}
          </time>
        </div>
        {args ? (
          <code class="args clip" title={attr(args)} safe>
            {args}
          </code>
        ) : (
          ""
        )}
        {e.url ? (
          <p class="where clip" title={attr(e.url)} safe>
            {e.title ? `${e.url} · ${e.title}` : e.url}
          </p>
        ) : (
          ""
        )}
        {e.error ? (
          <p class="error full" safe>
            {e.error}
          </p>
        ) : (
          ""
        )}
      </div>
      {e.screen_url ? (
        <dialog class="lightbox" id={box} aria-label={`#${e.n}`}>
          <img src={attr(e.screen_url)} alt={`#${e.n}`} loading="lazy" />
          <div class="buttons">
            <button type="button" commandfor={box} command="close">
              Close
            </button>
          </div>
        </dialog>
      ) : (
        ""
      )}
    </li>
  );
}

/** The entries, and the way to the older ones when there are more. */
export function Entries(props: { workspace: string; data: TimelineBatch }): JSX.Element {
  const { data } = props;
  return (
    <>
      {data.entries.map((e) => (
        <Entry entry={e} />
      ))}
      {data.next !== null ? (
        <li class="more">
          <button
            type="button"
            hx-get={attr(`${paneUrl(props.workspace, "timeline")}/older?before=${data.next}`)}
            hx-target="closest li"
            hx-swap="outerHTML"
          >
            Older
          </button>
        </li>
      ) : (
        ""
      )}
    </>
  );
}

export function TimelinePane(props: {
  workspace: string;
  data: TimelineBatch;
  rev: string;
  /** How many entries are kept (the tab's count). */
  total: number;
  /** The newest entry's number. */
  last: number;
  notice?: JSX.Element;
}): JSX.Element {
  const { workspace, data } = props;
  const url = paneUrl(workspace, "timeline");
  const n = props.total;
  return (
    <>
      <TimelineRev rev={props.rev} />
      {props.notice ?? ""}
      <form id="timelineForm" class="timeline" hx-post={attr(`${url}/flow`)} hx-target="#paneTimeline">
        <div class="bar">
          <span class="keep">
            <input
              type="text"
              name="name"
              aria-label="Flow name"
              placeholder="name"
              required
              maxlength="64"
            />
            <button type="submit" class="primary" id="saveAsFlow" disabled={n === 0}>
              Save as flow
            </button>
          </span>
          <span class="actions">
            <Opens id="clearScreens" dialog="clearScreensConfirm" disabled={n === 0}>
              Clear screens
            </Opens>
            <Opens id="clearTimeline" dialog="clearTimelineConfirm" disabled={n === 0}>
              Clear
            </Opens>
          </span>
        </div>
        <After last={props.last} />
        <ol class="timeline-list" id={TIMELINE_LIST}>
          <Entries workspace={workspace} data={data} />
        </ol>
        {n === 0 ? <p class="empty">Nothing yet.</p> : ""}
      </form>
      {n ? (
        <>
          <Confirm
            id="clearScreensConfirm"
            title="Clear screens"
            body="Screens only: the entries stay."
            pairs={[]}
            verb="Clear screens"
            action={{ method: "delete", url: `${url}/screens`, target: "#paneTimeline" }}
          />
          <Confirm
            id="clearTimelineConfirm"
            title="Clear timeline"
            body={`${n} ${n === 1 ? "entry" : "entries"} and their screens.`}
            pairs={[{ fate: "stays", text: "flows · files · history" }]}
            verb="Clear"
            action={{ method: "delete", url, target: "#paneTimeline" }}
          />
        </>
      ) : (
        ""
      )}
      <Total id="timelineTotal" n={n} oob />
    </>
  );
}

/** The entries after what the page shows, for the top of its list, with the markers moved on. */
export function Newer(props: {
  workspace: string;
  entries: ListedEntry[];
  rev: string;
  total: number;
  last: number;
}): JSX.Element {
  return (
    <>
      {props.entries.map((e) => (
        <Entry entry={e} />
      ))}
      <After last={props.last} oob />
      <TimelineRev rev={props.rev} oob />
      <Total id="timelineTotal" n={props.total} oob />
    </>
  );
}

/** The live view's place on the workspace page: the screen, or why there is none. */
export function LiveScreen(props: { live: boolean }): JSX.Element {
  return (
    <figure class="card live-view" id="liveView">
      <div id="liveScreen">{props.live ? <p class="muted">…</p> : <p class="muted">Not live.</p>}</div>
    </figure>
  );
}

/**
 * The SSE message for one frame of the live view. Its size, when known, keeps the picture's place
 * from one frame to the next, and a page taller than wide is marked so a wide screen stops it at the
 * window's height.
 */
export function frameMessage(frame: {
  live: boolean;
  jpeg?: string;
  width?: number;
  height?: number;
}): string {
  const { width, height } = frame;
  const sized = width !== undefined && height !== undefined;
  const out = (
    <tag of="hx-partial" hx-target="#liveScreen" hx-swap="innerHTML">
      {frame.live && frame.jpeg ? (
        <img
          src={`data:image/jpeg;base64,${frame.jpeg.replace(/[^A-Za-z0-9+/=]/g, "")}`}
          alt="Live screen"
          width={sized ? String(width) : undefined}
          height={sized ? String(height) : undefined}
          class={sized && height > width ? "tall" : undefined}
        />
      ) : (
        <p class="muted">Not live.</p>
      )}
    </tag>
  );
  if (typeof out !== "string") throw new Error("a view rendered asynchronously");
  return out;
}

/** Older entries that could not be read: the list's last item says why. */
export function OlderFailed(props: { error: string }): JSX.Element {
  return (
    <li class="more">
      <p class="empty error" safe>
        {props.error}
      </p>
    </li>
  );
}

/** What Save as flow kept, linked to the flow. */
export function SavedAsFlow(props: { workspace: string; name: string }): JSX.Element {
  return (
    <p class="empty notice">
      Saved as flow{" "}
      <a href={attr(workspaceUrl(props.workspace, "flows", props.name))} safe>
        {props.name}
      </a>
      .
    </p>
  );
}
