// A workspace's page and its panes, one per tab of the registry: each pane reads what its
// capability's admin route answers (its tab's `load`), and an action on a pane (Forget, Clear, Keep…)
// does what the same path under the API does (its tab's `ops`), then draws the pane again.
import { Elysia } from "elysia";
import type { Answer } from "../../admin/answer.ts";
import { type FragmentInput, opRoute, type PaneTab } from "../../admin/capability.ts";
import { notFound } from "../../errors.ts";
import { bodyParser } from "../../http/body.ts";
import { TABS, type WorkspaceRow } from "../../registry.ts";
import type { Services } from "../../services.ts";
import { ErrorNotice, Failed, render } from "../../views/parts.tsx";
import { type Ctx, type PaneCtx, PaneParams, type UiKit } from "./kit.ts";
import type { Admin } from "./operations.ts";
import { ErrorPage } from "./pages.tsx";
import { fragment, page } from "./respond.ts";
import { paneId, paneRev, totalId, WorkspaceHead, WorkspacePage } from "./workspace.tsx";

type Tab = PaneTab<WorkspaceRow, unknown, Services>;
/** A pane action's context: the workspace and its op's own params. */
type OpCtx = Ctx<Record<string, string>>;

/** The tab a URL segment names, or undefined. */
export const tabNamed = (slug: string | undefined): Tab | undefined => TABS.find((t) => t.slug === slug);

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
    html: render(Failed({ error: a.error, total: totalId(tab.slug) })),
  });
  // The row first: a change landing between the two reads then only costs one more reload.
  const row = await admin.row(key);
  if (!row.ok) return failed(row);
  const got = await admin.pane(key, tab);
  if (!got.ok) return failed(got);
  const rev = paneRev(row.body, tab);
  const html = render(
    tab.render({ workspace: key, data: got.body, row: row.body, rev, now: services.now(), open }),
  );
  return { status: 200, html };
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
  const open = tab.opens ? (ctx.query.open ?? null) : null;
  const out = await renderPane(services, admin, key, tab, open);
  const notice = outcome && !outcome.ok ? render(ErrorNotice({ error: outcome.error })) : "";
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
      const tab = tabNamed(tabOf(ctx));
      if (!tab) throw notFound(`no route GET ${new URL(ctx.request.url).pathname}`);
      const row = await admin.row(key);
      if (!row.ok) return page(ErrorPage({ title: key, error: row.error, signOut }), row.status);
      return page(WorkspacePage({ row: row.body, tab: tab.slug, tabs: TABS, item: itemOf(ctx), signOut }));
    });

  /**
   * The pane actions (Forget, Clear, Keep…): a route for each op of each tab, made from the op as its
   * JSON route is (`opRoute`); each does what that route does, then draws the pane again.
   */
  const opRoutes = () => {
    const app = new Elysia({ name: "ui-pane-ops" });
    for (const tab of TABS) {
      for (const op of tab.ops) {
        const { path, params } = opRoute(tab, op);
        const handler = kit.fragmentRoute(async (ctx: OpCtx, admin) => {
          const key = ctx.params.key as string;
          const outcome = await admin.act(key, op, ctx.params);
          return paneAfter(services, { ...ctx, params: { key } }, admin, tab, outcome);
        });
        if (op.method === "POST") app.post(`/ui/workspaces/:key/panes/${path}`, handler, { params });
        else app.delete(`/ui/workspaces/:key/panes/${path}`, handler, { params });
      }
    }
    return app;
  };

  /**
   * The panes' own fragments (the Timeline's newer and older entries, its Save as flow): a route for
   * each of each tab, handed what the fragment may ask of the surface (the row, the pane drawn again).
   */
  const fragmentRoutes = () => {
    const app = new Elysia({ name: "ui-pane-fragments" });
    for (const tab of TABS) {
      for (const f of tab.fragments ?? []) {
        const run = async (ctx: PaneCtx, admin: Admin) => {
          const key = ctx.params.key;
          const input: FragmentInput<WorkspaceRow> = {
            workspace: key,
            query: ctx.query,
            form: ctx.body instanceof URLSearchParams ? ctx.body : new URLSearchParams(),
            row: () => admin.row(key),
            rev: (row) => paneRev(row, tab),
            read: (fn) => admin.read(key, fn),
            pane: () => renderPane(services, admin, key, tab, null),
          };
          const out = await f.run(services, input);
          if (!("whole" in out)) return fragment(out.html, out.status ?? 200);
          const whole = await paneAfter(services, ctx, admin, tab, null);
          const headers = { "hx-retarget": `#${paneId(tab.slug)}`, "hx-reswap": "innerHTML" };
          return fragment(await whole.text(), whole.status, headers);
        };
        const path = `/ui/workspaces/:key/panes/${tab.slug}/${f.path}`;
        if (f.method === "GET") app.get(path, kit.fragmentRoute(run), { params: PaneParams });
        else
          app.post(path, kit.formRoute(run), {
            params: PaneParams,
            // Read before the handler checks the credential: bounded by the fragment's own cap.
            parse: bodyParser({
              kinds: ["form"],
              caps: { form: { bytes: f.formBytes ?? 0, what: "form" } },
              wrongType: "send the form as application/x-www-form-urlencoded",
            }),
          });
      }
    }
    return app;
  };

  const end = kit.fragmentRoute(async (ctx: PaneCtx, admin) => {
    const key = ctx.params.key;
    const ended = await admin.end(key);
    const row = await admin.row(key);
    const failed = ended.ok ? row : ended;
    const head = WorkspaceHead({ row: row.ok ? row.body : null, error: failed.ok ? null : failed.error });
    return fragment(render(head), ended.ok ? 200 : ended.status);
  });

  const forget = kit.fragmentRoute(async (ctx: PaneCtx, admin) => {
    const key = ctx.params.key;
    const gone = await admin.forget(key);
    if (!gone.ok) {
      return new Response(render(ErrorNotice({ error: gone.error })), {
        status: gone.status,
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    }
    return new Response(null, { status: 200, headers: { "hx-redirect": "/ui/" } });
  });

  const pane = kit.fragmentRoute((ctx: PaneCtx, admin) => {
    const tab = tabNamed(ctx.params.tab);
    if (!tab) throw notFound(`no route GET ${new URL(ctx.request.url).pathname}`);
    return paneAfter(services, ctx, admin, tab, null);
  });

  return { workspacePage, opRoutes, fragmentRoutes, end, forget, pane };
}
