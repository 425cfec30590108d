// Reading a request's body: capped, as JSON, and its media type. Neutral ground: the surfaces and
// the actions that read a REST body of their own (a flow's YAML, an upload) both use it.
import { badInput, tooLarge } from "./errors.ts";

export const JSON_CAP = 1024 * 1024;

/** The body's media type, lower case, without parameters ("" when there is none). */
export function mediaType(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
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
