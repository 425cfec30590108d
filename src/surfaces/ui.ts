// The admin pages under /ui: server-rendered views (ui/*.tsx; each pane's is in its capability) over
// what the admin JSON API answers: the pages call the same functions in-process (ui/operations.ts),
// so they never show more than the API would.
// Live updates: /ui/events renders the admin's live feed as htmx partials. Only named routes answer:
// a mistyped path falls through to the app's JSON 404, never to a page. The parts are in ui/.

import { Elysia } from "elysia";
import { notFound } from "../errors.ts";
import { bodyParser } from "../http/body.ts";
import { TABS } from "../registry.ts";
import type { Services } from "../services.ts";
import { ASSETS } from "../views/assets.ts";
import type { Feeds } from "./feed.ts";
import { eventsRoute } from "./ui/events.ts";
import { type Ctx, PaneParams, uiKit } from "./ui/kit.ts";
import { ActivityPage, SecretsPage, ServerLink, SettingsPage } from "./ui/pages.tsx";
import { paneRoutes } from "./ui/panes.ts";
import { fragment, page } from "./ui/respond.ts";
import { signInRoutes } from "./ui/sign-in.ts";
import { WorkspacesPage } from "./ui/workspaces.tsx";

export function uiRoutes(services: Services, feeds: Feeds) {
  const kit = uiKit(services, feeds);
  const { signOut } = kit;
  const panes = paneRoutes(kit);

  return (
    new Elysia({ name: "ui" })
      .get("/ui/static/:name", ({ params }) => {
        const asset = ASSETS.get(params.name);
        if (!asset) throw notFound(`no UI file ${params.name}`);
        return new Response(asset.bytes, {
          headers: {
            "content-type": asset.type,
            "cache-control": "public, max-age=31536000, immutable",
            "x-content-type-options": "nosniff",
          },
        });
      })
      .use(signInRoutes(services))
      .use(panes.opRoutes())
      .use(panes.fragmentRoutes())
      .get(
        "/ui/",
        kit.pageRoute(async (_, admin) => {
          const got = await admin.rows();
          const rows = got.ok ? (got.body ?? []) : null;
          return page(WorkspacesPage({ rows, error: got.ok ? undefined : got.error, signOut }));
        }),
      )
      .get("/ui/events", eventsRoute(kit))
      .delete(
        "/ui/secrets/workspaces/:key/:name",
        kit.fragmentRoute(async (ctx: Ctx<{ key: string; name: string }>, admin) => {
          const gone = await admin.removeSecret(ctx.params.key, ctx.params.name);
          if (!gone.ok) throw notFound(gone.error);
          return new Response("", { headers: { "content-type": "text/html; charset=utf-8" } });
        }),
      )
      .post(
        "/ui/secrets/server",
        kit.formRoute(async (ctx: Ctx, admin) => {
          const form = ctx.body instanceof URLSearchParams ? ctx.body : new URLSearchParams();
          const got = await admin.serverSecretLink(
            {
              name: form.get("name") ?? "",
              key: form.get("key") ?? "",
              allowed_urls: (form.get("allowed_urls") ?? "").split(/[\s,]+/).filter(Boolean),
            },
            ctx.request,
          );
          // Drawn in place either way (htmx swaps a 200 only): the link, or what to put right.
          return fragment(got.ok ? ServerLink({ link: got.body.link }) : ServerLink({ error: got.error }));
        }),
        {
          parse: bodyParser({
            kinds: ["form"],
            caps: { form: { bytes: 8 * 1024, what: "form" } },
            wrongType: "send the form as application/x-www-form-urlencoded",
          }),
        },
      )
      .delete(
        "/ui/secrets/server/:name",
        kit.fragmentRoute(async (ctx: Ctx<{ key?: string; name: string }>, admin) => {
          const gone = await admin.removeServerSecret(ctx.params.name);
          if (!gone.ok) throw notFound(gone.error);
          return new Response("", { headers: { "content-type": "text/html; charset=utf-8" } });
        }),
      )
      .get(
        "/ui/secrets",
        kit.pageRoute(async (_, admin) => {
          const got = await admin.secrets();
          const given = await admin.givenSecrets();
          const server = await admin.serverSecrets();
          return page(
            SecretsPage({
              secrets: got.body ?? [],
              given: given.body ?? [],
              server: server.body ?? [],
              error: got.ok ? (given.ok ? null : given.error) : got.error,
              signOut,
            }),
            got.ok ? 200 : got.status,
          );
        }),
      )
      .get(
        "/ui/settings",
        kit.pageRoute(async (_, admin) => {
          const got = await admin.settings();
          return page(
            SettingsPage({
              settings: got.body ?? [],
              error: got.ok ? null : got.error,
              signOut,
            }),
            got.ok ? 200 : got.status,
          );
        }),
      )
      .get(
        "/ui/activity",
        kit.pageRoute(async (_, admin) => {
          const got = await admin.activity();
          return page(
            ActivityPage({ calls: got.body ?? [], error: got.ok ? null : got.error, signOut }),
            got.ok ? 200 : got.status,
          );
        }),
      )
      // A workspace's page and panes: the params typed and decoded once by their schema.
      .guard({ params: PaneParams }, (app) =>
        app
          .get(
            "/ui/workspaces/:key",
            panes.workspacePage(
              () => TABS[0]?.slug ?? "",
              () => null,
            ),
          )
          .get(
            "/ui/workspaces/:key/:tab",
            panes.workspacePage(
              (ctx) => ctx.params.tab,
              () => null,
            ),
          )
          .get("/ui/workspaces/:key/panes/:tab", panes.pane)
          .post("/ui/workspaces/:key/end", panes.end)
          .delete("/ui/workspaces/:key", panes.forget),
      )
      // A tab that opens an item (a host, a flow) has its page at /ui/workspaces/{key}/{tab}/{item}.
      .guard({ params: PaneParams }, (app) => {
        for (const tab of TABS.filter((t) => t.opens))
          app.get(
            `/ui/workspaces/:key/${tab.slug}/:item`,
            panes.workspacePage(
              () => tab.slug,
              (ctx) => ctx.params.item ?? null,
            ),
          );
        return app;
      })
  );
}
