// Answers and bodies every HTTP route shares, surface or capability: JSON out, a failure as
// `{"error": ...}` with its status (the app's one onError sends every failure through here), and a
// capped body in.
import { ValidationError } from "elysia";
import { badInput, errorBody, notFound, statusOf, TooMany, tooLarge } from "../errors.ts";
import { log } from "../log.ts";

export const JSON_CAP = 1024 * 1024;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

function failure(err: unknown, redact: (text: string) => string = (t) => t): Response {
  const status = statusOf(err);
  const body = { error: redact(errorBody(err).error) };
  if (status >= 500) log.error(`request failed: ${body.error}`);
  const headers: Record<string, string> =
    err instanceof TooMany ? { "retry-after": String(err.retryAfter) } : {};
  return json(body, status, headers);
}

/**
 * The answer for whatever a route, a hook or a route schema threw (the app's onError). A schema's
 * refusal is the 400 its first issue's message gives: route schemas carry the messages the
 * handlers gave before them.
 */
export function failureOf(
  code: unknown,
  error: unknown,
  request: Request,
  redact?: (text: string) => string,
): Response {
  if (code === "NOT_FOUND") {
    const path = new URL(request.url).pathname;
    return failure(notFound(`no route ${request.method} ${path}: /openapi.json lists them`), redact);
  }
  if (error instanceof ValidationError) {
    const issue = error.all[0];
    const field = issue?.path && issue.path !== "root" ? issue.path : undefined;
    return failure(badInput(issue?.message ?? `the request's ${error.type} is not valid`, field), redact);
  }
  return failure(error, redact);
}

/** Reads at most `cap` bytes of a body, or throws 413. */
export async function readCapped(request: Request, cap: number, what = "JSON"): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "");
  const over = () => tooLarge(`the body is over its cap of ${cap} bytes of ${what}: send less`);
  if (Number.isFinite(declared) && declared > cap) throw over();
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel().catch(() => undefined);
      throw over();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The JSON object a body holds; an empty body is `{}`. Never echoes what was sent. */
export async function readJson(request: Request, cap = JSON_CAP): Promise<unknown> {
  const bytes = await readCapped(request, cap);
  const text = new TextDecoder().decode(bytes);
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw badInput("the body is not valid JSON: send a JSON object");
  }
}
