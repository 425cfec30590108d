// Serving a stored file: the headers every one gets, and disk files streamed with HTTP Range so a
// player can seek a recording. A disk file is opened without following a symlink.
import type { FileHandle } from "node:fs/promises";
import { contentType, RASTER_TYPES } from "../kit/file-types.ts";
import { openNoFollow } from "./store-disk.ts";

/** A raster image drawn as a page runs nothing; it is not sandboxed, so the browser shows it. */
export const NO_SCRIPT = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'";
/** A video or audio file opened in a tab is a media document that loads itself, and nothing else. */
export const MEDIA_ONLY = "default-src 'none'; media-src 'self'; style-src 'unsafe-inline'";

/** The CSP for a type: images and media as above, a PDF none (the viewer is the browser's own), the rest sandboxed. */
export function cspFor(type: string): string | null {
  if (RASTER_TYPES.has(type)) return NO_SCRIPT;
  if (type.startsWith("video/") || type.startsWith("audio/")) return MEDIA_ONLY;
  if (type === "application/pdf") return null;
  return "sandbox";
}

/** Shown in place for what a browser can show safely; saved for everything else. */
export function disposition(name: string): string {
  const type = contentType(name);
  const inline =
    RASTER_TYPES.has(type) ||
    type.startsWith("video/") ||
    type.startsWith("audio/") ||
    type === "application/pdf" ||
    type === "text/plain";
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `${inline ? "inline" : "attachment"}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** The headers every stored file is served with. */
export function headersFor(name: string, maxAge: number): Record<string, string> {
  const type = contentType(name);
  const headers: Record<string, string> = {
    "content-type": type.startsWith("text/") ? `${type}; charset=utf-8` : type,
    "content-disposition": disposition(name),
    "cache-control": `private, max-age=${Math.max(0, Math.floor(maxAge))}`,
    "x-content-type-options": "nosniff",
  };
  const csp = cspFor(type);
  if (csp) headers["content-security-policy"] = csp;
  return headers;
}

/**
 * The one range a `Range` header asks for; "none" when it asks for none we serve (RFC 9110: an
 * invalid range, like bytes=5-1, is ignored and the whole file sent); "bad" when unsatisfiable.
 */
export function parseRange(
  header: string | null,
  size: number,
): { start: number; end: number } | "none" | "bad" {
  if (!header) return "none";
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Several ranges, or another unit: the whole file is a valid answer.
  if (!m) return "none";
  const [, a, b] = m as unknown as [string, string, string];
  if (a === "" && b === "") return "none";
  let start: number;
  let end: number;
  if (a === "") {
    const suffix = Number(b);
    if (suffix === 0) return "bad";
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(a);
    if (b !== "" && Number(b) < start) return "none";
    end = b === "" ? size - 1 : Math.min(Number(b), size - 1);
  }
  if (start >= size || start > end) return "bad";
  return { start, end };
}

const CHUNK = 256 * 1024;

/** Bytes `start`..`end` (inclusive) of an open file; the file is closed at the end or on cancel. */
function fileStream(fh: FileHandle, start: number, end: number): ReadableStream<Uint8Array> {
  let at = start;
  const done = () => fh.close().catch(() => undefined);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const want = Math.min(CHUNK, end + 1 - at);
      const buf = new Uint8Array(Math.max(want, 0));
      const { bytesRead } = want > 0 ? await fh.read(buf, 0, want, at) : { bytesRead: 0 };
      if (bytesRead === 0) {
        await done();
        controller.close();
        return;
      }
      at += bytesRead;
      controller.enqueue(buf.subarray(0, bytesRead));
    },
    cancel: done,
  });
}

/** A file on disk, whole or the range asked for; null when it is not a regular file (a symlink). */
export async function serveDisk(
  request: Request,
  path: string,
  name: string,
  maxAge: number,
): Promise<Response | null> {
  const fh = await openNoFollow(path);
  if (!fh) return null;
  const size = (await fh.stat()).size;
  const headers = { ...headersFor(name, maxAge), "accept-ranges": "bytes" };
  const range = parseRange(request.headers.get("range"), size);
  if (range === "bad") {
    await fh.close();
    return new Response(null, { status: 416, headers: { ...headers, "content-range": `bytes */${size}` } });
  }
  if (range === "none") {
    return new Response(fileStream(fh, 0, size - 1), {
      headers: { ...headers, "content-length": String(size) },
    });
  }
  return new Response(fileStream(fh, range.start, range.end), {
    status: 206,
    headers: {
      ...headers,
      "content-range": `bytes ${range.start}-${range.end}/${size}`,
      "content-length": String(range.end - range.start + 1),
    },
  });
}

/** A file that is not on our disk (a Grid download): streamed whole. */
export function serveStream(
  body: ReadableStream<Uint8Array>,
  name: string,
  maxAge: number,
  size: number | null,
): Response {
  const headers: Record<string, string> = headersFor(name, maxAge);
  if (size !== null) headers["content-length"] = String(size);
  return new Response(body, { headers });
}
