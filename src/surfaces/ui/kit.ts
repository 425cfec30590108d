// What every admin page and fragment route shares: who is signed in, the sign-in form for a page
// without credentials, and a 401 (JSON, like the API) for a fragment without them.

import { z } from "zod";
import { type AdminCredential, adminTokenOf } from "../../admin/auth.ts";
import { AppError, notFound } from "../../errors.ts";
import { isWorkspaceName } from "../../kit/names.ts";
import type { Services } from "../../services.ts";
import type { Feeds } from "../feed.ts";
import { Admin } from "./operations.ts";
import { page } from "./respond.ts";
import { SignInPage } from "./sign-in-page.tsx";

/** The params of a route on one workspace's page or panes (`/ui/workspaces/:key/…`), decoded once. */
export const PaneParams = z.object({
  key: z.string(),
  tab: z.string().optional(),
  host: z.string().optional(),
  name: z.string().optional(),
  item: z.string().optional(),
  "*": z.string().optional(),
});

export type Ctx<P extends { key?: string } = { key?: string }> = {
  request: Request;
  params: P;
  query: Record<string, string | undefined>;
  /** What a route that names a body parser read (src/http/body.ts). */
  body?: unknown;
  set: { headers: Record<string, string | number> };
};
/** The context of a route on one workspace (its params as PaneParams gives them). */
export type PaneCtx = Ctx<z.infer<typeof PaneParams>>;
/** A page's or a fragment's answer: a response, or (the live feed) the messages of an event stream. */
type Reply = Response | AsyncGenerator<Uint8Array>;
type Handler<C extends Ctx> = (ctx: C, admin: Admin) => Promise<Reply> | Reply;

export interface UiKit {
  services: Services;
  /** The server's live feeds. */
  feeds: Feeds;
  /** Whether the pages offer Sign out (a token is configured). */
  signOut: boolean;
  signInHere(request: Request): Response;
  /** A page: the sign-in form without credentials; otherwise `fn`'s HTML. */
  pageRoute<C extends Ctx>(fn: Handler<C>): (ctx: C) => Promise<Reply>;
  /** A fragment for htmx: 401 (JSON) without credentials, like the API. It reads no body. */
  fragmentRoute<C extends Ctx>(fn: Handler<C>): (ctx: C) => Promise<Reply>;
  /** A fragment handed the form its route's parser read (`parse: bodyParser(…)`, src/http/body.ts). */
  formRoute<C extends Ctx>(fn: Handler<C>): (ctx: C) => Promise<Reply>;
}

export function uiKit(services: Services, feeds: Feeds): UiKit {
  const admin = new Admin(services);
  /** The caller's credential, or null without one (a malformed cookie is a 400). */
  const signedIn = async (request: Request): Promise<AdminCredential | null> => {
    try {
      return await services.gate.credential(request);
    } catch (err) {
      if (err instanceof AppError && err.kind === "unauthorized") return null;
      throw err;
    }
  };
  const signInHere = (request: Request) => {
    const url = new URL(request.url);
    return page(SignInPage({ next: url.pathname + url.search }), 401);
  };
  const fragment = async <C extends Ctx>(fn: Handler<C>, ctx: C): Promise<Reply> => {
    await services.gate.admin(ctx.request);
    // A route without path params is handed none (undefined), whatever its type says.
    const key = ctx.params?.key;
    if (key !== undefined && !isWorkspaceName(key)) throw notFound(`no workspace ${key}`);
    return fn(ctx, admin);
  };
  // Each handler names the parts of the context it takes: Elysia reads a body only for a route whose
  // handler names `body` (or that names a parser), so a page or a fragment reads none, whatever is sent.
  return {
    services,
    feeds,
    signOut: adminTokenOf(services.config) !== null,
    signInHere,
    pageRoute:
      (fn) =>
      async ({ request, params, query, set }) => {
        if (!(await signedIn(request))) return signInHere(request);
        return fn({ request, params, query, set } as Parameters<typeof fn>[0], admin);
      },
    fragmentRoute:
      (fn) =>
      async ({ request, params, query, set }) =>
        fragment(fn, { request, params, query, set } as Parameters<typeof fn>[0]),
    formRoute:
      (fn) =>
      async ({ request, params, query, set, body }) =>
        fragment(fn, { request, params, query, set, body } as Parameters<typeof fn>[0]),
  };
}
