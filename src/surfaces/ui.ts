// The admin pages under /ui: server-rendered views (views/) over the admin JSON API, which they call
// in-process with the caller's own credentials, so the pages can never show more than the API would.
// Live updates: /ui/events turns the API's SSE rows into htmx partials. Only named routes answer:
// a mistyped path falls through to the app's JSON 404, never to a page.
import { Elysia } from "elysia";
import { ASSETS } from "../../views/assets.ts";
import { FilesPane } from "../../views/files.tsx";
import { FlowsPane } from "../../views/flows.tsx";
import { HistoryPane } from "../../views/history.tsx";
import { ActivityPage, ErrorPage, SecretsPage, SettingsPage } from "../../views/pages.tsx";
import { attr, Failed, render } from "../../views/parts.tsx";
import {
  callsOf,
  filesOf,
  flowsOf,
  historyOf,
  type Row,
  secretsOf,
  settingsOf,
  siteDataOf,
} from "../../views/payloads.ts";
import { SignInPage } from "../../views/sign-in.tsx";
import { SiteDataPane } from "../../views/site-data.tsx";
import { TABS, type Tab, workspaceUrl } from "../../views/urls.ts";
import { liveMessage, paneRev, totalId, WorkspaceHead, WorkspacePage } from "../../views/workspace.tsx";
import { cardMessage, WorkspacesPage } from "../../views/workspaces.tsx";
import { badInput, FlowError, notFound, TooMany, unsupportedType } from "../errors.ts";
import { isWorkspaceName } from "../names.ts";
import { Entries, frameMessage, Newer, TimelinePane, timelineOf } from "../timeline/view.tsx";
import {
  ADMIN_COOKIE,
  type AdminCredential,
  bearerOf,
  SIGN_IN_SECONDS,
  SignInLimiter,
  sameToken,
} from "./admin-auth.ts";
import { hasBody, mediaType, peerOf } from "./guard.ts";
import { failure, readCapped } from "./http.ts";
import type { ServerServices as Services } from "./services.ts";

/** Answers a request as the whole app would (the admin API included). */
export type Dispatch = (request: Request) => Promise<Response>;

interface Answer {
  ok: boolean;
  status: number;
  body: unknown;
  /** The API's `error`, or what went wrong reading it. */
  error: string;
}

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'self'; img-src 'self' data:; media-src 'self'; style-src 'self'; script-src 'self'; " +
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
};

function page(body: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: { "content-type": "text/html; charset=utf-8", ...SECURITY_HEADERS, ...headers },
  });
}

const SIGN_IN_FAILED = "wrong token: type the server's auth token (auth.token, AUTH_TOKEN)";

/** The sign-in form's largest body: a token and a page to go to. */
export const SIGN_IN_CAP = 4096;
/** The Save as flow form's largest body: a name and the ticked entries. */
const FORM_CAP = 64 * 1024;
/** The most entries a push loads onto the Timeline's top; further behind, the pane loads again. */
const NEWER_MAX = 50;

/**
 * The admin API, called in-process for a caller already checked: with the caller's own bearer, or
 * for a signed-in cookie with the server's token (it never leaves the process).
 */
class Api {
  constructor(
    private readonly dispatch: Dispatch,
    private readonly request: Request,
    private readonly token: string | null,
  ) {}

  raw(method: string, path: string, signal?: AbortSignal, body?: unknown): Promise<Response> {
    const headers = new Headers();
    const given = bearerOf(this.request);
    if (given !== null) headers.set("authorization", `Bearer ${given}`);
    else if (this.token) headers.set("authorization", `Bearer ${this.token}`);
    if (body !== undefined) headers.set("content-type", "application/json");
    const origin = new URL(this.request.url).origin;
    return this.dispatch(
      new Request(`${origin}${path}`, {
        method,
        headers,
        signal,
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  }

  async call(method: string, path: string, payload?: unknown): Promise<Answer> {
    let res: Response;
    try {
      res = await this.raw(method, path, undefined, payload);
    } catch (err) {
      return { ok: false, status: 500, body: null, error: err instanceof Error ? err.message : String(err) };
    }
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    const said = (body as { error?: unknown } | null)?.error;
    const error = typeof said === "string" ? said : res.ok ? "" : `the admin API answered HTTP ${res.status}`;
    return { ok: res.ok, status: res.status, body, error };
  }

  get(path: string): Promise<Answer> {
    return this.call("GET", path);
  }
}

const enc = encodeURIComponent;
const wsPath = (key: string) => `/admin/workspaces/${enc(key)}`;
const isTab = (t: string): t is Tab => (TABS as readonly string[]).includes(t);

/** The pane's fragment: its content, its revision marker and its tab's count, or the API's error. */
async function renderPane(
  services: Services,
  api: Api,
  key: string,
  tab: Tab,
  open: string | null,
): Promise<{ status: number; html: string }> {
  const failed = (a: Answer) => ({
    status: a.status,
    html: render(Failed({ error: a.error, total: totalId(tab) })),
  });
  // The row first: a change landing between the two reads then only costs one more reload.
  const row = await api.get(wsPath(key));
  if (!row.ok) return failed(row);
  const rev = paneRev(row.body as Record<string, unknown>, tab);
  const got = await api.get(`${wsPath(key)}/${tab}`);
  if (!got.ok) return failed(got);
  const now = services.now();
  switch (tab) {
    case "site-data":
      return {
        status: 200,
        html: render(SiteDataPane({ workspace: key, data: siteDataOf(got.body), rev, now, open })),
      };
    case "history":
      return {
        status: 200,
        html: render(HistoryPane({ workspace: key, data: historyOf(got.body), rev, now })),
      };
    case "files":
      return { status: 200, html: render(FilesPane({ workspace: key, data: filesOf(got.body), rev })) };
    case "timeline": {
      const r = row.body as Record<string, unknown>;
      const counts = (r.counts ?? {}) as Record<string, unknown>;
      return {
        status: 200,
        html: render(
          TimelinePane({
            workspace: key,
            data: timelineOf(got.body),
            rev,
            total: typeof counts.timeline === "number" ? counts.timeline : 0,
            last: typeof r.timeline_last === "number" ? r.timeline_last : 0,
          }),
        ),
      };
    }
    case "flows": {
      const data = flowsOf(got.body);
      // A listing without each flow's YAML: read them one by one.
      await Promise.all(
        data.flows
          .filter((f) => f.yaml === undefined)
          .slice(0, 100)
          .map(async (f) => {
            const one = await api.get(`${wsPath(key)}/flows/${enc(f.name)}`);
            const b = one.body as Record<string, unknown> | string | null;
            if (!one.ok) {
              f.error = one.error;
              return;
            }
            if (typeof b === "string") {
              f.yaml = b;
              return;
            }
            if (typeof b?.problem === "string") f.problem ??= b.problem;
            f.yaml = typeof b?.yaml === "string" ? b.yaml : JSON.stringify(b, null, 2);
          }),
      );
      return { status: 200, html: render(FlowsPane({ workspace: key, data, rev, open })) };
    }
  }
}

/** One SSE message carrying `html`. */
const sseData = (html: string) =>
  `${html
    .split("\n")
    .map((l) => `data: ${l}`)
    .join("\n")}\n\n`;

/** Turns the API's SSE rows into htmx messages; `message` renders a row, or null to skip it. */
async function liveEvents(
  api: Api,
  request: Request,
  message: (row: Row) => string | null,
  watch?: string,
): Promise<Response> {
  // A workspace's page watches it: the stream carries its live screen too (and only while open).
  const path = watch === undefined ? "/admin/events" : `/admin/events?watch=${enc(watch)}`;
  const upstream = await api.raw("GET", path, request.signal);
  if (!upstream.ok || !upstream.body) return upstream;
  const reader = upstream.body.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffer = "";
  const translate = (block: string): string => {
    let event = "";
    let data = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data += line.slice(5).trimStart();
    }
    if (event === "screen" && watch !== undefined) {
      try {
        const frame = JSON.parse(data) as { key?: unknown; live?: unknown; hidden?: unknown; jpeg?: unknown };
        // A page holding a typed secret is not pictured: the last picture stays until it moves on.
        if (frame.key !== watch || frame.hidden === true) return "";
        return sseData(
          frameMessage({ live: frame.live === true, jpeg: typeof frame.jpeg === "string" ? frame.jpeg : "" }),
        );
      } catch {
        return "";
      }
    }
    if (event !== "workspace") return ": beat\n\n";
    let row: Row;
    try {
      row = JSON.parse(data) as Row;
    } catch {
      return "";
    }
    const html = typeof row?.key === "string" ? message(row) : null;
    return html ? sseData(html) : "";
  };
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (chunk.done) {
          controller.close();
          return;
        }
        buffer += decoder.decode(chunk.value, { stream: true });
        let out = "";
        for (let i = buffer.indexOf("\n\n"); i >= 0; i = buffer.indexOf("\n\n")) {
          out += translate(buffer.slice(0, i));
          buffer = buffer.slice(i + 2);
        }
        if (out) {
          controller.enqueue(encoder.encode(out));
          return;
        }
      }
    },
    cancel() {
      reader.cancel().catch(() => undefined);
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" },
  });
}

function cookie(request: Request, value: string, maxAge?: number): string {
  const https =
    new URL(request.url).protocol === "https:" ||
    (request.headers.get("x-forwarded-proto") ?? "").split(",")[0]?.trim() === "https";
  const parts = [`${ADMIN_COOKIE}=${encodeURIComponent(value)}`, "HttpOnly", "SameSite=Strict", "Path=/"];
  if (maxAge !== undefined) parts.push(`Max-Age=${maxAge}`);
  if (https) parts.push("Secure");
  return parts.join("; ");
}

/** Where to go after signing in: a page under /ui/, nothing else. */
function nextPage(v: unknown): string {
  return typeof v === "string" && v.startsWith("/ui/") && !v.startsWith("/ui//") && !/[\\\s]/.test(v)
    ? v
    : "/ui/";
}

type Ctx = { request: Request; params: Record<string, string>; query: Record<string, string | undefined> };

export function uiRoutes(services: Services, dispatch: Dispatch) {
  const token = services.config.auth.token;
  const signOut = token !== null;
  const limiter = new SignInLimiter();
  /** The caller's credential, or null without one (a malformed cookie is a 400). */
  const signedIn = async (request: Request): Promise<AdminCredential | null> => {
    try {
      return await services.admin.credential(request);
    } catch (err) {
      if (err instanceof FlowError && err.kind === "unauthorized") return null;
      throw err;
    }
  };
  const signInHere = (request: Request) => {
    const url = new URL(request.url);
    return page(SignInPage({ next: url.pathname + url.search }), 401);
  };

  /** A page: the sign-in form without credentials; otherwise `fn`'s HTML. */
  const pageRoute =
    (fn: (ctx: Ctx, api: Api) => Promise<Response> | Response) =>
    async (ctx: Ctx): Promise<Response> => {
      try {
        if (!(await signedIn(ctx.request))) return signInHere(ctx.request);
      } catch (err) {
        return failure(err);
      }
      return fn(ctx, new Api(dispatch, ctx.request, token));
    };

  /** A fragment for htmx: 401 (JSON) without credentials, like the API. */
  const fragmentRoute =
    (fn: (ctx: Ctx, api: Api) => Promise<Response> | Response) =>
    async (ctx: Ctx): Promise<Response> => {
      try {
        await services.admin.require(ctx.request);
        const key = ctx.params?.key;
        if (key !== undefined && !isWorkspaceName(key)) throw notFound(`no workspace ${key}`);
        return await fn(ctx, new Api(dispatch, ctx.request, token));
      } catch (err) {
        return failure(err);
      }
    };

  const workspacePage = (tabOf: (ctx: Ctx) => string, itemOf: (ctx: Ctx) => string | null) =>
    pageRoute(async (ctx, api) => {
      const key = ctx.params.key as string;
      const tab = tabOf(ctx);
      if (!isTab(tab)) return failure(notFound(`no route GET ${new URL(ctx.request.url).pathname}`));
      const row = await api.get(wsPath(key));
      if (!row.ok) {
        if (row.status === 401) return signInHere(ctx.request);
        return page(ErrorPage({ title: key, error: row.error, signOut }), row.status);
      }
      return page(WorkspacePage({ row: row.body as Row, tab, item: itemOf(ctx), signOut }));
    });

  const paneAfter = async (ctx: Ctx, api: Api, tab: Tab, outcome: Answer | null): Promise<Response> => {
    const key = ctx.params.key as string;
    const open = tab === "site-data" || tab === "flows" ? (ctx.query.open ?? null) : null;
    const out = await renderPane(services, api, key, tab, open);
    // A failed action shows its error above the pane as it is now.
    const notice =
      outcome && !outcome.ok ? `<p class="empty error notice">${Bun.escapeHTML(outcome.error)}</p>` : "";
    return new Response(notice + out.html, {
      status: outcome && !outcome.ok ? outcome.status : out.status,
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
    });
  };

  /** An action on a pane (Forget, Clear, Keep…): the same path under the API, then the pane again. */
  const paneAction = (method: "POST" | "DELETE") =>
    fragmentRoute(async (ctx, api) => {
      const key = ctx.params.key as string;
      const tab = ctx.params.tab as string;
      if (!isTab(tab)) throw notFound(`no route ${method} ${new URL(ctx.request.url).pathname}`);
      const rest = ctx.params["*"];
      let suffix = "";
      try {
        suffix = rest
          ? `/${rest
              .split("/")
              .map((s) => enc(decodeURIComponent(s)))
              .join("/")}`
          : "";
      } catch {
        throw badInput("the path is not valid percent-encoding");
      }
      const outcome = await api.call(method, `${wsPath(key)}/${tab}${suffix}`);
      return paneAfter(ctx, api, tab, outcome);
    });

  const fragment = (html: string, status = 200, headers: Record<string, string> = {}) =>
    new Response(html, {
      status,
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...headers },
    });

  /** The Timeline's entries after what the page shows (`after`), or the whole pane when that cannot be said. */
  const newerEntries = fragmentRoute(async (ctx, api) => {
    const key = ctx.params.key as string;
    const whole = async () => {
      const out = await paneAfter(ctx, api, "timeline", null);
      return fragment(await out.text(), out.status, {
        "hx-retarget": "#paneTimeline",
        "hx-reswap": "innerHTML",
      });
    };
    const row = await api.get(wsPath(key));
    if (!row.ok) return whole();
    const r = row.body as Record<string, unknown>;
    const last = typeof r.timeline_last === "number" ? r.timeline_last : 0;
    const counts = (r.counts ?? {}) as Record<string, unknown>;
    const total = typeof counts.timeline === "number" ? counts.timeline : 0;
    const after = /^\d{1,15}$/.test(ctx.query.after ?? "") ? Number(ctx.query.after) : 0;
    // A page that shows none yet, a timeline cleared since, or a long way behind: all of it again.
    if (after < 1 || after > last || last - after > NEWER_MAX) return whole();
    let entries: ReturnType<typeof timelineOf>["entries"] = [];
    if (last > after) {
      const got = await api.get(`${wsPath(key)}/timeline?limit=${last - after}`);
      if (!got.ok) return whole();
      entries = timelineOf(got.body).entries.filter((e) => e.n > after);
    }
    const rev = paneRev(r, "timeline");
    return fragment(render(Newer({ workspace: key, entries, rev, total, last })));
  });

  /** Older entries of the Timeline, below what the page shows. */
  const olderEntries = fragmentRoute(async (ctx, api) => {
    const key = ctx.params.key as string;
    const before = /^\d{1,15}$/.test(ctx.query.before ?? "") ? ctx.query.before : "";
    const got = await api.get(`${wsPath(key)}/timeline?before=${before}`);
    if (!got.ok) {
      return fragment(
        `<li class="more"><p class="empty error">${Bun.escapeHTML(got.error)}</p></li>`,
        got.status,
      );
    }
    return fragment(render(Entries({ workspace: key, data: timelineOf(got.body) })));
  });

  /** Save as flow: the ticked entries' range (the oldest to the newest) kept as the flow `name`. */
  const keepAsFlow = fragmentRoute(async (ctx, api) => {
    const key = ctx.params.key as string;
    const request = ctx.request;
    if (hasBody(request) && mediaType(request) !== "application/x-www-form-urlencoded") {
      throw unsupportedType("send the form as application/x-www-form-urlencoded");
    }
    const form = new URLSearchParams(new TextDecoder().decode(await readCapped(request, FORM_CAP, "form")));
    const ticked = form
      .getAll("entry")
      .filter((v) => /^\d{1,15}$/.test(v))
      .map(Number);
    let outcome: Answer;
    if (ticked.length === 0) {
      outcome = {
        ok: false,
        status: 400,
        body: null,
        error: "tick the first and the last entry of the run to keep, then Save as flow",
      };
    } else {
      outcome = await api.call("POST", `${wsPath(key)}/timeline/flow`, {
        name: (form.get("name") ?? "").trim(),
        from: Math.min(...ticked),
        to: Math.max(...ticked),
      });
    }
    const out = await renderPane(services, api, key, "timeline", null);
    const saved = outcome.body as { name?: unknown } | null;
    const notice = outcome.ok
      ? `<p class="empty notice">Saved as flow <a href="${attr(workspaceUrl(key, "flows", String(saved?.name ?? "")))}">${Bun.escapeHTML(String(saved?.name ?? ""))}</a>.</p>`
      : `<p class="empty error notice">${Bun.escapeHTML(outcome.error)}</p>`;
    return fragment(notice + out.html, outcome.ok ? out.status : outcome.status);
  });

  /** The sign-in form: at most SIGN_IN_CAP bytes, and five wrong tokens a minute per address. */
  const signIn = async (request: Request): Promise<Response> => {
    const address = peerOf(request);
    limiter.check(address);
    if (hasBody(request) && mediaType(request) !== "application/x-www-form-urlencoded") {
      throw unsupportedType("send the sign-in form as application/x-www-form-urlencoded");
    }
    const form = new URLSearchParams(
      new TextDecoder().decode(await readCapped(request, SIGN_IN_CAP, "sign-in form")),
    );
    const given = (form.get("token") ?? "").trim();
    const next = nextPage(form.get("next"));
    if (token === null) return new Response(null, { status: 303, headers: { location: next } });
    if (!given || !sameToken(given, token)) {
      limiter.failed(address);
      return page(SignInPage({ error: SIGN_IN_FAILED, next }), 401);
    }
    const id = await services.admin.signIn();
    return new Response(null, {
      status: 303,
      headers: { location: next, "set-cookie": cookie(request, id, SIGN_IN_SECONDS) },
    });
  };

  return new Elysia({ name: "ui" })
    .get("/ui/static/:name", ({ params }) => {
      const asset = ASSETS.get(params.name);
      if (!asset) return failure(notFound(`no UI file ${params.name}`));
      return new Response(asset.bytes, {
        headers: {
          "content-type": asset.type,
          "cache-control": "public, max-age=31536000, immutable",
          "x-content-type-options": "nosniff",
        },
      });
    })
    .post("/ui/sign-in", async ({ request }) => {
      try {
        return await signIn(request);
      } catch (err) {
        if (err instanceof TooMany) {
          return page(SignInPage({ error: err.message }), 429, { "retry-after": String(err.retryAfter) });
        }
        return failure(err);
      }
    })
    .post("/ui/sign-out", async ({ request }) => {
      try {
        await services.admin.signOut(request);
      } catch (err) {
        return failure(err);
      }
      return new Response(null, {
        status: 303,
        headers: { location: "/ui/", "set-cookie": cookie(request, "", 0) },
      });
    })
    .get(
      "/ui/",
      pageRoute(async ({ request }, api) => {
        const got = await api.get("/admin/workspaces");
        if (got.status === 401) return signInHere(request);
        const rows = got.ok ? ((got.body as { workspaces?: Row[] }).workspaces ?? []) : null;
        return page(WorkspacesPage({ rows, error: got.ok ? undefined : got.error, signOut }));
      }),
    )
    .get(
      "/ui/events",
      fragmentRoute((ctx, api) => {
        const key = ctx.query.workspace;
        if (key === undefined) return liveEvents(api, ctx.request, cardMessage);
        if (!isWorkspaceName(key)) throw notFound(`no workspace ${key}`);
        return liveEvents(api, ctx.request, (row) => (row.key === key ? liveMessage(row) : null), key);
      }),
    )
    .get(
      "/ui/secrets",
      pageRoute(async (_, api) => {
        const got = await api.get("/admin/secrets");
        return page(
          SecretsPage({ secrets: secretsOf(got.body), error: got.ok ? null : got.error, signOut }),
          got.ok ? 200 : got.status,
        );
      }),
    )
    .get(
      "/ui/settings",
      pageRoute(async (_, api) => {
        const got = await api.get("/admin/settings");
        return page(
          SettingsPage({ settings: settingsOf(got.body), error: got.ok ? null : got.error, signOut }),
          got.ok ? 200 : got.status,
        );
      }),
    )
    .get(
      "/ui/activity",
      pageRoute(async (_, api) => {
        const got = await api.get("/admin/activity");
        return page(
          ActivityPage({ calls: callsOf(got.body), error: got.ok ? null : got.error, signOut }),
          got.ok ? 200 : got.status,
        );
      }),
    )
    .get(
      "/ui/workspaces/:key",
      workspacePage(
        () => "files",
        () => null,
      ),
    )
    .get(
      "/ui/workspaces/:key/:tab",
      workspacePage(
        (ctx) => ctx.params.tab as string,
        () => null,
      ),
    )
    .get(
      "/ui/workspaces/:key/site-data/:host",
      workspacePage(
        () => "site-data",
        (ctx) => ctx.params.host ?? null,
      ),
    )
    .get(
      "/ui/workspaces/:key/flows/:name",
      workspacePage(
        () => "flows",
        (ctx) => ctx.params.name ?? null,
      ),
    )
    .get(
      "/ui/workspaces/:key/panes/:tab",
      fragmentRoute((ctx, api) => {
        const tab = ctx.params.tab as string;
        if (!isTab(tab)) throw notFound(`no route GET ${new URL(ctx.request.url).pathname}`);
        return paneAfter(ctx, api, tab, null);
      }),
    )
    .get("/ui/workspaces/:key/panes/timeline/newer", newerEntries)
    .get("/ui/workspaces/:key/panes/timeline/older", olderEntries)
    .post("/ui/workspaces/:key/panes/timeline/flow", keepAsFlow)
    .post("/ui/workspaces/:key/panes/:tab/*", paneAction("POST"))
    .delete("/ui/workspaces/:key/panes/:tab", paneAction("DELETE"))
    .delete("/ui/workspaces/:key/panes/:tab/*", paneAction("DELETE"))
    .post(
      "/ui/workspaces/:key/end",
      fragmentRoute(async (ctx, api) => {
        const key = ctx.params.key as string;
        const ended = await api.call("POST", `${wsPath(key)}/end`);
        const row = await api.get(wsPath(key));
        const failed = ended.ok ? row : ended;
        const notice = failed.ok ? "" : `<p class="empty error notice">${Bun.escapeHTML(failed.error)}</p>`;
        const head = row.ok
          ? render(WorkspaceHead({ row: row.body as Row }))
          : '<header class="card workspace" id="wsHead"></header>';
        return new Response(head.replace(/<\/header>$/, `${notice}</header>`), {
          status: ended.ok ? 200 : ended.status,
          headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
        });
      }),
    )
    .delete(
      "/ui/workspaces/:key",
      fragmentRoute(async (ctx, api) => {
        const key = ctx.params.key as string;
        const gone = await api.call("DELETE", wsPath(key));
        if (!gone.ok) {
          return new Response(`<p class="empty error notice">${Bun.escapeHTML(gone.error)}</p>`, {
            status: gone.status,
            headers: { "content-type": "text/html; charset=utf-8" },
          });
        }
        return new Response(null, { status: 200, headers: { "hx-redirect": "/ui/" } });
      }),
    );
}
