// Signing in and out of the admin pages: the form posts the token, the answer sets the cookie that
// carries a random sign-in id (never the token).
import { stringifySetCookie } from "cookie";
import { Elysia } from "elysia";
import {
  ADMIN_COOKIE,
  adminTokenOf,
  agentOnlyTokenOf,
  SIGN_IN_SECONDS,
  SignInLimiter,
  sameToken,
} from "../../admin/auth.ts";
import { TooMany } from "../../errors.ts";
import { bodyParser } from "../../http/body.ts";
import type { Services } from "../../services.ts";
import { page } from "./respond.ts";
import { SignInPage } from "./sign-in-page.tsx";

const SIGN_IN_FAILED =
  "wrong token: type the server's admin token (auth.admin_token, AUTH_ADMIN_TOKEN; auth.token when that is unset)";

const AGENT_TOKEN_SIGN_IN =
  "that is the agent token (auth.token): the admin pages take the admin token (auth.admin_token, AUTH_ADMIN_TOKEN)";

/** The sign-in form's largest body: a token and a page to go to. */
export const SIGN_IN_CAP = 4096;

function cookie(request: Request, value: string, maxAge?: number): string {
  const https =
    new URL(request.url).protocol === "https:" ||
    (request.headers.get("x-forwarded-proto") ?? "").split(",")[0]?.trim() === "https";
  return stringifySetCookie({
    name: ADMIN_COOKIE,
    value,
    httpOnly: true,
    sameSite: "strict",
    path: "/",
    ...(maxAge !== undefined ? { maxAge } : {}),
    ...(https ? { secure: true } : {}),
  });
}

/** Where to go after signing in: a page under /ui/, nothing else. */
function nextPage(v: unknown): string {
  return typeof v === "string" && v.startsWith("/ui/") && !v.startsWith("/ui//") && !/[\\\s]/.test(v)
    ? v
    : "/ui/";
}

export function signInRoutes(services: Services) {
  const token = adminTokenOf(services.config);
  const agentToken = agentOnlyTokenOf(services.config);
  const limiter = new SignInLimiter();

  /** The sign-in form: at most SIGN_IN_CAP bytes, and five wrong tokens a minute per client address. */
  const signIn = async (request: Request, body: unknown, address: string): Promise<Response> => {
    limiter.check(address);
    const form = body instanceof URLSearchParams ? body : new URLSearchParams();
    const given = (form.get("token") ?? "").trim();
    const next = nextPage(form.get("next"));
    if (token === null) return new Response(null, { status: 303, headers: { location: next } });
    if (!given || !sameToken(given, token)) {
      limiter.failed(address);
      const agent = agentToken !== null && given !== "" && sameToken(given, agentToken);
      return page(SignInPage({ error: agent ? AGENT_TOKEN_SIGN_IN : SIGN_IN_FAILED, next }), 401);
    }
    const id = await services.gate.signIn();
    return new Response(null, {
      status: 303,
      headers: { location: next, "set-cookie": cookie(request, id, SIGN_IN_SECONDS) },
    });
  };

  return (
    new Elysia({ name: "ui-sign-in" })
      // The address is the server's (Bun's requestIP), not a header a client could set.
      .post(
        "/ui/sign-in",
        ({ request, body, server }) =>
          signIn(request, body, server?.requestIP(request)?.address ?? "unknown").catch((err) => {
            // A person waiting out the limit sees the form again, with why; other failures are the app's.
            if (!(err instanceof TooMany)) throw err;
            return page(SignInPage({ error: err.message }), 429, { "retry-after": String(err.retryAfter) });
          }),
        {
          parse: bodyParser({
            kinds: ["form"],
            caps: { form: { bytes: SIGN_IN_CAP, what: "sign-in form" } },
            wrongType: "send the sign-in form as application/x-www-form-urlencoded",
          }),
        },
      )
      .post("/ui/sign-out", async ({ request }) => {
        await services.gate.signOut(request);
        return new Response(null, {
          status: 303,
          headers: { location: "/ui/", "set-cookie": cookie(request, "", 0) },
        });
      })
  );
}
