// The page where a person types a secret an agent asked for (secrets.ts): GET shows what is asked,
// by whom's words, and the hosts the value will be typed on (ticked; the person may untick, never
// add); POST keeps the value. Same-origin only: the POST must come from this page, in the browser
// that opened it (an Origin of this server's, and the form's own token equal to the cookie the page
// set, scoped to the page's path), and its link works once, for ten minutes. The value never leaves
// the server again: the answer names the secret and its hosts only.
import { parse as parseCookie, stringifySetCookie } from "cookie";
import { Elysia } from "elysia";
import { AppError, forbidden, statusOf } from "../errors.ts";
import { bodyParser } from "../http/body.ts";
import { SERVER_RECORD } from "../store/record.ts";
import { PageShell } from "../views/layout.tsx";
import { attr } from "../views/parts.tsx";
import { ENTER_PATH, MAX_VALUE, type OpenRequest, type PersonSecrets } from "./secrets.ts";

const COOKIE = "sf_enter";
/** The form's largest body: the value, its hosts and the token. */
const FORM_CAP = 16 * 1024;

const SECURITY_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy":
    "default-src 'self'; style-src 'self'; script-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

const page = (body: string, status = 200, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { ...SECURITY_HEADERS, ...headers } });

const hostOf = (item: string) => {
  const text = item.includes("://") ? item : `http://${item}`;
  return URL.canParse(text) ? new URL(text).host : item;
};

function Form(props: { open: OpenRequest; error?: string }): string {
  const { workspace, request: r } = props.open;
  const until = new Date(r.until * 1000).toISOString().slice(11, 16);
  return PageShell({
    title: "A secret for an agent",
    signedIn: false,
    children: (
      <form class="sign-in enter-secret" method="post">
        <h1>A secret for an agent</h1>
        {workspace === SERVER_RECORD ? (
          <p>
            An admin of this server asks for <strong safe>{r.key}</strong> of <strong safe>{r.name}</strong>,
            for every workspace.
          </p>
        ) : (
          <p>
            An agent working in <strong safe>{workspace}</strong> asks for <strong safe>{r.key}</strong> of{" "}
            <strong safe>{r.name}</strong>.
          </p>
        )}
        {r.reason ? (
          <p>
            It says (its own words): <q safe>{r.reason}</q>
          </p>
        ) : (
          ""
        )}
        <fieldset>
          <legend>It will be typed only on these sites. Untick any it should not be typed on:</legend>
          {r.allowed_urls.map((u) => (
            <label class="host">
              <input type="checkbox" name="hosts" value={attr(u)} checked /> <strong safe>{hostOf(u)}</strong>{" "}
              <span class="muted" safe>{`(${u})`}</span>
            </label>
          ))}
        </fieldset>
        <label for="value" safe>{`The value of ${r.key}`}</label>
        <input
          id="value"
          name="value"
          type="password"
          autocomplete="off"
          maxlength={String(MAX_VALUE)}
          required
          autofocus
        />
        <input type="hidden" name="csrf" value={attr(r.csrf)} />
        {props.error ? (
          <p class="error" role="alert" safe>
            {props.error}
          </p>
        ) : (
          ""
        )}
        <p class="muted" safe>
          {`The agent never sees the value: the server types it for the agent on those sites. This link works once, until ${until} UTC.`}
        </p>
        <button type="submit" class="primary">
          Keep it
        </button>{" "}
        <button type="submit" name="decline" value="1" formnovalidate>
          Decline
        </button>
      </form>
    ),
  });
}

function Said(props: { title: string; text: string }): string {
  return PageShell({
    title: props.title,
    signedIn: false,
    children: (
      <div class="sign-in">
        <h1 safe>{props.title}</h1>
        <p safe>{props.text}</p>
      </div>
    ),
  });
}

/** The form's page, with the cookie that ties its POST to this browser. */
function formPage(request: Request, open: OpenRequest, error?: string, status = 200): Response {
  const path = new URL(request.url).pathname;
  const https =
    new URL(request.url).protocol === "https:" ||
    (request.headers.get("x-forwarded-proto") ?? "").split(",")[0]?.trim() === "https";
  const cookie = stringifySetCookie({
    name: COOKIE,
    value: open.request.csrf,
    httpOnly: true,
    sameSite: "strict",
    path,
    maxAge: Math.max(1, Math.ceil(open.request.until - Date.now() / 1000)),
    ...(https ? { secure: true } : {}),
  });
  return page(Form({ open, ...(error ? { error } : {}) }), status, { "set-cookie": cookie });
}

/** A POST that is not the page's own: no Origin of this server's (the guard refuses another's), or sent from elsewhere. */
function sameOrigin(request: Request): void {
  if (!request.headers.get("origin"))
    throw forbidden(
      "the form must be sent by the page itself (its Origin was not sent): open the link again",
    );
  const site = request.headers.get("sec-fetch-site");
  if (site && site !== "same-origin")
    throw forbidden("the form must be sent by the page itself, not from another site");
}

const failed = (err: unknown) => {
  if (!(err instanceof AppError)) throw err;
  const title = statusOf(err) === 404 ? "This link does not work" : "Not kept";
  return page(Said({ title, text: err.message }), statusOf(err));
};

/** What the page's routes are handed: the secrets a person gives. */
export interface SecretPageNeeds {
  readonly personSecrets: Pick<PersonSecrets, "find" | "enter" | "decline">;
}

export function secretPageRoutes(services: SecretPageNeeds) {
  const route = `${ENTER_PATH}/:token`;
  const people = services.personSecrets;
  return new Elysia({ name: "secret-page" })
    .get(route, async ({ request, params }) => {
      try {
        return formPage(request, await people.find(params.token));
      } catch (err) {
        return failed(err);
      }
    })
    .post(
      route,
      async ({ request, params, body }) => {
        const form = body instanceof URLSearchParams ? body : new URLSearchParams();
        const csrf = form.get("csrf") ?? "";
        try {
          // The cookie the page set in this browser, and the form's own token: both the request's.
          const cookie = parseCookie(request.headers.get("cookie") ?? "")[COOKIE] ?? "";
          if (!cookie || cookie !== csrf)
            throw forbidden("this form is not the page's own: open the link you were given again");
          if (form.get("decline")) {
            await people.decline(params.token, csrf);
            return page(
              Said({ title: "Declined", text: "Nothing was kept; the agent is told you declined." }),
            );
          }
          const kept = await people.enter(params.token, {
            csrf,
            value: form.get("value") ?? "",
            chosen: form.getAll("hosts"),
          });
          const where = kept.allowed_urls.map(hostOf).join(", ");
          return page(
            Said({
              title: "Kept",
              text: `${kept.name} is kept for ${kept.workspace === SERVER_RECORD ? "every workspace of this server" : `workspace ${kept.workspace}`} and will be typed only on ${where}. The agent goes on without seeing it; you may close this page.`,
            }),
          );
        } catch (err) {
          // A form the person can put right (no value, no host left) is shown again.
          if (err instanceof AppError && err.kind === "bad_input") {
            const open = await people.find(params.token).catch(() => null);
            if (open) return formPage(request, open, err.message, 400);
          }
          return failed(err);
        }
      },
      {
        // The page's own origin before a byte is read, then the form.
        parse: [
          ({ request }) => sameOrigin(request),
          bodyParser({
            kinds: ["form"],
            caps: { form: { bytes: FORM_CAP, what: "secret form" } },
            wrongType: "send the form as application/x-www-form-urlencoded",
          }),
        ],
      },
    );
}
