// A request body's declared type: whether there is one, what it is, and 415 for one a JSON route
// does not take.
import { unsupportedType } from "../errors.ts";

/** Whether the request carries a body (a length above zero, or one sent in chunks). */
export function hasBody(request: Request): boolean {
  const length = request.headers.get("content-length");
  if (length !== null) return Number(length) > 0;
  return request.headers.has("transfer-encoding");
}

/** The body's media type, lower case, without parameters ("" when there is none). */
export function mediaType(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/** The names a YAML body goes by. */
export const YAML_TYPES = ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"];

/** 415 unless a body, if there is one, is JSON (or one of `also`). */
export function requireJson(request: Request, also: readonly string[] = []): void {
  if (!hasBody(request)) return;
  const type = mediaType(request);
  if (type === "application/json" || also.includes(type)) return;
  const takes = ["application/json", ...also].join(" or ");
  throw unsupportedType(
    `the body is ${type ? `of type ${type}` : "of no declared type"}: send it as ${takes} (Content-Type)`,
  );
}
