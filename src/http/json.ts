// Answers and bodies every HTTP route shares, surface or capability: JSON out, a failure as
// `{"error": ...}` with its status, and a capped body in.
import { badInput, errorBody, statusOf, TooMany, tooLarge } from "../errors.ts";
import { log } from "../log.ts";

export const JSON_CAP = 1024 * 1024;

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

export function failure(err: unknown): Response {
  const status = statusOf(err);
  if (status >= 500) log.error(`request failed: ${errorBody(err).error}`);
  const headers: Record<string, string> =
    err instanceof TooMany ? { "retry-after": String(err.retryAfter) } : {};
  return json(errorBody(err), status, headers);
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
