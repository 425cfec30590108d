// Answers and bodies every HTTP route shares, surface or capability: JSON out, a failure as
// `{"error": ...}` with its status (the app's one onError sends every failure through here). Bodies
// in are body.ts's.
import { ParseError, ValidationError } from "elysia";
import { badInput, errorBody, notFound, statusOf, TooMany } from "../errors.ts";
import type { Log } from "../log.ts";

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** How a failure's answer is said: its text redacted, and a 5xx in the server's log. */
export interface Saying {
  redact?: (text: string) => string;
  log?: Pick<Log, "error">;
}

function failure(err: unknown, { redact = (t) => t, log }: Saying = {}): Response {
  const status = statusOf(err);
  const body = { error: redact(errorBody(err).error) };
  if (status >= 500) log?.error(`request failed: ${body.error}`);
  const headers: Record<string, string> =
    err instanceof TooMany ? { "retry-after": String(err.retryAfter) } : {};
  return json(body, status, headers);
}

/**
 * The answer for whatever a route, a hook or a route schema threw (the app's onError). A schema's
 * refusal is the 400 its first issue's message gives: route schemas carry the messages the
 * handlers gave before them.
 */
export function failureResponse(
  code: unknown,
  error: unknown,
  request: Request,
  said: Saying = {},
): Response {
  // What a route's parse hook threw (its gate, body.ts's reader), Elysia hands over wrapped.
  if (error instanceof ParseError && error.cause !== undefined) return failure(error.cause, said);
  if (code === "NOT_FOUND") {
    const path = new URL(request.url).pathname;
    return failure(notFound(`no route ${request.method} ${path}: /openapi.json lists them`), said);
  }
  if (error instanceof ValidationError) {
    const issue = error.all[0];
    const field = issue?.path && issue.path !== "root" ? issue.path : undefined;
    return failure(badInput(issue?.message ?? `the request's ${error.type} is not valid`, field), said);
  }
  return failure(error, said);
}
