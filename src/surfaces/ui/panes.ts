// A workspace's page and its panes: each pane reads what its capability's admin route answers, and
// an action on a pane (Forget, Clear, Keep…) does what the same path under the API does, then draws
// the pane again.
import { FilesPane } from "../../../views/files.tsx";
import { FlowsPane } from "../../../views/flows.tsx";
import { HistoryPane } from "../../../views/history.tsx";
import type { FilesPayload, FlowEntry } from "../../../views/models.ts";
import { ErrorPage } from "../../../views/pages.tsx";
import { Failed, render } from "../../../views/parts.tsx";
import { SiteDataPane } from "../../../views/site-data.tsx";
import { TABS, type Tab } from "../../../views/urls.ts";
import { paneRev, totalId, WorkspaceHead, WorkspacePage } from "../../../views/workspace.tsx";
import { badInput, notFound } from "../../errors.ts";
import type { filesListing } from "../../files/admin.ts";
import type { Services } from "../../services.ts";
import { TimelinePane } from "../../timeline/view.tsx";
import type { Admin, Answer } from "./admin.ts";
import type { PaneCtx, UiKit } from "./kit.ts";
import { errorNotice, fragment, page } from "./respond.ts";

export const isTab = (t: string | undefined): t is Tab => (TABS as readonly string[]).includes(t ?? "");

/** The timeline's place in a row: how many entries, and the newest one's n. */
export function timelineCounts(row: Record<string, unknown>): { total: number; last: number } {
  const counts = (row.counts ?? {}) as Record<string, unknown>;
  return {
    total: typeof counts.timeline === "number" ? counts.timeline : 0,
    last: typeof row.timeline_last === "number" ? row.timeline_last : 0,
  };
}

/** The Files pane's folders (an empty `off` while files are on). */
function filesView(data: Awaited<ReturnType<typeof filesListing>>): Required<FilesPayload> {
  const { files, screenshots, recordings, downloads } = data;
  return { off: "off" in data ? data.off : "", files, screenshots, recordings, downloads };
}

/** The pane's fragment: its content, its revision marker and its tab's count, or the API's error. */
export async function renderPane(
  services: Services,
  admin: Admin,
  key: string,
  tab: Tab,
  open: string | null,
): Promise<{ status: number; html: string }> {
  const failed = (a: Answer) => ({
    status: a.status,
    html: render(Failed({ error: a.error, total: totalId(tab) })),
  });
  const drawn = <T>(got: Answer<T>, draw: (data: T) => JSX.Element) =>
    got.ok ? { status: 200, html: render(draw(got.body)) } : failed(got);
  // The row first: a change landing between the two reads then only costs one more reload.
  const row = await admin.row(key);
  if (!row.ok) return failed(row);
  const rev = paneRev(row.body, tab);
  const now = services.now();
  switch (tab) {
    case "site-data":
      return drawn(await admin.siteData(key), (data) =>
        SiteDataPane({ workspace: key, data, rev, now, open }),
      );
    case "history":
      return drawn(await admin.history(key), (data) => HistoryPane({ workspace: key, data, rev, now }));
    case "files":
      return drawn(await admin.files(key), (data) =>
        FilesPane({ workspace: key, data: filesView(data), rev }),
      );
    case "timeline": {
      const { total, last } = timelineCounts(row.body);
      return drawn(await admin.timeline(key), (data) =>
        TimelinePane({ workspace: key, data, rev, total, last }),
      );
    }
    case "flows": {
      const got = await admin.flows(key);
      if (!got.ok) return failed(got);
      const data = {
        enabled: got.body.enabled,
        flows: got.body.flows.map(
          (f): FlowEntry => ({
            name: f.name,
            description: f.description,
            global: f.source === "global",
            steps: f.steps,
            problem: f.problem,
          }),
        ),
      };
      // The listing has no flow's YAML: read them one by one.
      await Promise.all(
        data.flows.slice(0, 100).map(async (f) => {
          const one = await admin.flow(key, f.name);
          if (!one.ok) {
            f.error = one.error;
            return;
          }
          const b = one.body as Record<string, unknown>;
          if (typeof b.problem === "string") f.problem ??= b.problem;
          f.yaml = typeof b.yaml === "string" ? b.yaml : JSON.stringify(b, null, 2);
        }),
      );
      return { status: 200, html: render(FlowsPane({ workspace: key, data, rev, open })) };
    }
  }
}

/** The pane as it is now; a failed action's error above it. */
export async function paneAfter(
  services: Services,
  ctx: PaneCtx,
  admin: Admin,
  tab: Tab,
  outcome: Answer | null,
): Promise<Response> {
  const key = ctx.params.key;
  const open = tab === "site-data" || tab === "flows" ? (ctx.query.open ?? null) : null;
  const out = await renderPane(services, admin, key, tab, open);
  const notice = outcome && !outcome.ok ? errorNotice(outcome.error) : "";
  return fragment(notice + out.html, outcome && !outcome.ok ? outcome.status : out.status);
}

export function paneRoutes(kit: UiKit) {
  const { services, signOut } = kit;
  const workspacePage = (
    tabOf: (ctx: PaneCtx) => string | undefined,
    itemOf: (ctx: PaneCtx) => string | null,
  ) =>
    kit.pageRoute(async (ctx: PaneCtx, admin) => {
      const key = ctx.params.key;
      const tab = tabOf(ctx);
      if (!isTab(tab)) throw notFound(`no route GET ${new URL(ctx.request.url).pathname}`);
      const row = await admin.row(key);
      if (!row.ok) return page(ErrorPage({ title: key, error: row.error, signOut }), row.status);
      return page(WorkspacePage({ row: row.body, tab, item: itemOf(ctx), signOut }));
    });

  /** An action on a pane (Forget, Clear, Keep…): what the same path under the API does, then the pane again. */
  const paneAction = (method: "POST" | "DELETE") =>
    kit.fragmentRoute(async (ctx: PaneCtx, admin) => {
      const key = ctx.params.key;
      const tab = ctx.params.tab;
      if (!isTab(tab)) throw notFound(`no route ${method} ${new URL(ctx.request.url).pathname}`);
      const rest = ctx.params["*"];
      let parts: string[] = [];
      try {
        parts = rest ? rest.split("/").map((s) => decodeURIComponent(s)) : [];
      } catch {
        throw badInput("the path is not valid percent-encoding");
      }
      const outcome = await admin.act(key, method, tab, parts);
      return paneAfter(services, ctx, admin, tab, outcome);
    });

  const end = kit.fragmentRoute(async (ctx: PaneCtx, admin) => {
    const key = ctx.params.key;
    const ended = await admin.end(key);
    const row = await admin.row(key);
    const failed = ended.ok ? row : ended;
    const notice = failed.ok ? "" : errorNotice(failed.error);
    const head = row.ok
      ? render(WorkspaceHead({ row: row.body }))
      : '<header class="card workspace" id="wsHead"></header>';
    return fragment(head.replace(/<\/header>$/, `${notice}</header>`), ended.ok ? 200 : ended.status);
  });

  const forget = kit.fragmentRoute(async (ctx: PaneCtx, admin) => {
    const key = ctx.params.key;
    const gone = await admin.forget(key);
    if (!gone.ok) {
      return new Response(errorNotice(gone.error), {
        status: gone.status,
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    }
    return new Response(null, { status: 200, headers: { "hx-redirect": "/ui/" } });
  });

  const pane = kit.fragmentRoute((ctx: PaneCtx, admin) => {
    const tab = ctx.params.tab;
    if (!isTab(tab)) throw notFound(`no route GET ${new URL(ctx.request.url).pathname}`);
    return paneAfter(services, ctx, admin, tab, null);
  });

  return { workspacePage, paneAction, end, forget, pane };
}
