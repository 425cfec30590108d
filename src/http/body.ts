// The body reader every route that takes a body names as its Elysia `parse` option where it is
// declared (`parse: bodyParser(spec)`), with the types it takes and its cap; its handler is handed
// `body`. A route that names none reads nothing, whatever is sent (Elysia parses only for a route
// whose handler or schema asks for `body`: one that asks names a parser).
import { badInput, tooLarge, unsupportedType } from "../errors.ts";
import { mediaType, YAML_TYPES } from "./media.ts";

export const JSON_CAP = 1024 * 1024;

/** What a body may be: JSON (parsed), YAML (its text), a urlencoded form, a multipart form. */
export type BodyKind = "json" | "yaml" | "form" | "multipart";

const TYPES: Record<BodyKind, readonly string[]> = {
  json: ["application/json"],
  yaml: YAML_TYPES,
  form: ["application/x-www-form-urlencoded"],
  multipart: ["multipart/form-data"],
};

export interface Cap {
  bytes: number;
  what: string;
}

const CAPS: Record<BodyKind, Cap> = {
  json: { bytes: JSON_CAP, what: "JSON" },
  yaml: { bytes: JSON_CAP, what: "YAML" },
  form: { bytes: JSON_CAP, what: "form" },
  multipart: { bytes: JSON_CAP, what: "multipart form" },
};

export interface BodySpec {
  /** The kinds taken, the first for an empty body (default JSON only). */
  kinds?: readonly BodyKind[];
  /** Bytes at most of a kind, and what the 413 calls it (default 1 MiB, named for the kind). */
  caps?: Partial<Record<BodyKind, Cap>>;
  /** The 415's message where the route words its own. */
  wrongType?: string;
}

/**
 * A route's `parse` option: its body read as `spec` says, capped and decoded (never `undefined`, so
 * Elysia's own parsers never run after it). A check that must pass before a byte is read goes
 * before it in the route's `parse` list: Elysia runs `beforeHandle` only after the body is read.
 */
export function bodyParser(spec: BodySpec = {}): (c: { request: Request }) => Promise<unknown> {
  return ({ request }) => readBody(request, spec);
}

/** The kind `request`'s media type names among `kinds`, or a 415 naming what the route takes. */
function kindOf(request: Request, kinds: readonly BodyKind[], wrongType?: string): BodyKind {
  const type = mediaType(request);
  const kind = kinds.find((k) => TYPES[k].includes(type));
  if (kind) return kind;
  if (wrongType) throw unsupportedType(wrongType);
  const takes = kinds.flatMap((k) => TYPES[k]).join(" or ");
  throw unsupportedType(
    `the body is ${type ? `of type ${type}` : "of no declared type"}: send it as ${takes} (Content-Type)`,
  );
}

async function readBody(request: Request, spec: BodySpec): Promise<unknown> {
  const kinds = spec.kinds ?? ["json"];
  // No body, or one declared empty: the first kind's empty value, whatever type it names.
  const empty = request.body === null || request.headers.get("content-length") === "0";
  const kind = empty ? (kinds[0] as BodyKind) : kindOf(request, kinds, spec.wrongType);
  const cap = spec.caps?.[kind] ?? CAPS[kind];
  const bytes = await readCapped(request, cap.bytes, cap.what);
  const text = () => new TextDecoder().decode(bytes);
  switch (kind) {
    case "json":
      return parseJson(text());
    case "yaml":
      return text();
    case "form":
      return new URLSearchParams(text());
    case "multipart":
      try {
        return await new Response(bytes as Uint8Array<ArrayBuffer>, {
          headers: { "content-type": request.headers.get("content-type") ?? "" },
        }).formData();
      } catch {
        throw badInput("the body is not valid multipart/form-data");
      }
  }
}

/** The JSON object a body holds; an empty body is `{}`. Never echoes what was sent. */
function parseJson(text: string): unknown {
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw badInput("the body is not valid JSON: send a JSON object");
  }
}

/** Reads at most `cap` bytes of a body, or throws 413. */
async function readCapped(request: Request, cap: number, what: string): Promise<Uint8Array> {
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

/** A JSON body that must be an object: it, or a 400 with `message`. */
export function objectBody(
  body: unknown,
  message = "the body must be a JSON object",
): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body) || body instanceof FormData)
    throw badInput(message);
  return body as Record<string, unknown>;
}
