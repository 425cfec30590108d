// What every HTTP route shares: bearer auth, naming the workspace, reading a capped JSON body,
// and turning a failure into `{"error": ...}` with its status.
import { badInput, errorBody, statusOf, TooMany, tooLarge, unauthorized } from "../errors.ts";
import { log } from "../log.ts";
import { workspaceNameProblem } from "../names.ts";
import { bearerOf, sameToken } from "./admin-auth.ts";

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

/** Throws 401 unless the request carries the bearer token (no token configured: loopback only, open). */
export function requireToken(request: Request, token: string | null): void {
  if (!token) return;
  const given = bearerOf(request);
  if (given !== null && sameToken(given, token)) return;
  throw unauthorized();
}

const NAME_IT =
  "name a workspace: send the X-Workspace header or add ?workspace=<name> to the URL (one of them, not both)";

/** The workspace a request names with `X-Workspace` or `?workspace=`; both or neither is a 400. */
export function workspaceOf(request: Request): string {
  const header = request.headers.get("x-workspace");
  const query = new URL(request.url).searchParams.get("workspace");
  if (header !== null && query !== null) {
    throw badInput(`both the X-Workspace header and ?workspace= name a workspace: ${NAME_IT}`, "workspace");
  }
  const name = (header ?? query ?? "").trim();
  if (!name) throw badInput(`no workspace named: ${NAME_IT}`, "workspace");
  const problem = workspaceNameProblem(name);
  if (problem) throw badInput(`invalid workspace name: ${problem}`, "workspace");
  return name;
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
