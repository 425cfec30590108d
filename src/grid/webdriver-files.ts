// Files through the Grid: the browser's managed downloads (listed, streamed) and uploads onto its machine.
import { error as wdError } from "selenium-webdriver";
import { redactCredentials, unavailable } from "../errors.ts";
import { gridReason, isNoSuchSession } from "./webdriver-errors.ts";
import type { GridHttpClient } from "./webdriver-http.ts";
import { unzipOne, zipOne } from "./zip.ts";

/** A file the browser downloaded, as the Grid lists it. */
export interface GridDownload {
  name: string;
  size: number | null;
  /** Epoch ms. */
  modified: number | null;
}

export class GridFiles {
  constructor(
    private readonly http: GridHttpClient,
    private readonly base: string,
    /** A file through the Grid: at least the command deadline. */
    private readonly fileMs: number,
  ) {}

  /**
   * The browser's managed downloads (`se:downloadsEnabled`, `GET /session/<id>/se/files`), newest
   * first. A browser that is gone has none.
   */
  async downloads(id: string): Promise<GridDownload[]> {
    const res = await this.fileCall(`/session/${encodeURIComponent(id)}/se/files`, { method: "GET" });
    const body = (await res.json().catch(() => null)) as {
      value?: {
        names?: unknown;
        files?: Array<{ name?: unknown; size?: unknown; lastModifiedTime?: unknown }>;
        error?: string;
        message?: string;
      };
    } | null;
    if (!res.ok) return this.fileRefusal(res.status, body?.value, []);
    const files = body?.value?.files;
    const out: GridDownload[] = Array.isArray(files)
      ? files
          .filter((f) => typeof f.name === "string")
          .map((f) => ({
            name: f.name as string,
            size: typeof f.size === "number" ? f.size : null,
            modified: typeof f.lastModifiedTime === "number" ? f.lastModifiedTime : null,
          }))
      : Array.isArray(body?.value?.names)
        ? (body.value.names as unknown[])
            .filter((n): n is string => typeof n === "string")
            .map((name) => ({ name, size: null, modified: null }))
        : [];
    return out.sort((a, b) => (b.modified ?? 0) - (a.modified ?? 0));
  }

  /**
   * One download's bytes, streamed (`GET /session/<id>/se/files/<name>`); a Grid too old for that
   * answers the zip of `POST …/se/files`. Null when the browser or the file is gone.
   */
  async download(
    id: string,
    name: string,
  ): Promise<{ body: ReadableStream<Uint8Array>; size: number | null } | null> {
    const base = `/session/${encodeURIComponent(id)}/se/files`;
    const res = await this.fileCall(`${base}/${encodeURIComponent(name)}`, { method: "GET" });
    const type = res.headers.get("content-type") ?? "";
    if (res.ok && res.body && !type.startsWith("application/json")) {
      const length = Number(res.headers.get("content-length") ?? "");
      return {
        body: res.body,
        size: Number.isFinite(length) && length >= 0 && res.headers.has("content-length") ? length : null,
      };
    }
    await res.body?.cancel();
    const zipped = await this.fileCall(base, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ name }),
    });
    const body = (await zipped.json().catch(() => null)) as {
      value?: { contents?: unknown; error?: string; message?: string };
    } | null;
    if (!zipped.ok || typeof body?.value?.contents !== "string")
      return this.fileRefusal(zipped.status, body?.value, null);
    const { data } = unzipOne(Buffer.from(body.value.contents, "base64"));
    return { body: new Blob([data as Uint8Array<ArrayBuffer>]).stream(), size: data.length };
  }

  /**
   * Puts a file on the browser's machine through the Grid (`POST /session/<id>/se/file`, a one-file
   * zip), so a file input can take it on a remote Grid too. The path to type into the input.
   */
  async upload(id: string, name: string, data: Uint8Array): Promise<string> {
    const res = await this.fileCall(`/session/${encodeURIComponent(id)}/se/file`, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ file: Buffer.from(zipOne(name, data)).toString("base64") }),
    });
    const body = (await res.json().catch(() => null)) as { value?: unknown } | null;
    const value = body?.value;
    if (res.ok && typeof value === "string") return value;
    const e = (value ?? {}) as { error?: string; message?: string };
    if (isNoSuchSession(new Error(`${e.error ?? ""}: ${e.message ?? ""}`))) {
      throw new wdError.NoSuchSessionError(redactCredentials(e.message ?? "no such session"));
    }
    throw unavailable(`the Grid did not take the file: ${gridReason(e.message ?? `HTTP ${res.status}`)}`);
  }

  private async fileCall(path: string, init: RequestInit): Promise<Response> {
    let res: Response;
    try {
      res = await this.http.fetch(path, {
        ...init,
        headers: this.http.headers(init.headers as Record<string, string> | undefined),
        signal: AbortSignal.timeout(this.fileMs),
      });
    } catch (err) {
      if (err instanceof DOMException) throw unavailable(`the Grid at ${this.base} did not answer in time`);
      throw err;
    }
    if (res.status === 401 || res.status === 407) throw this.http.refusedCredentials(res.status);
    return res;
  }

  // A gone browser or file is `gone`; a Grid that cannot do managed downloads says so.
  private fileRefusal<T>(
    status: number,
    value: { error?: string; message?: string } | undefined,
    gone: T,
  ): T {
    const reason = `${value?.error ?? ""}: ${value?.message ?? ""}`;
    if (
      status === 404 ||
      isNoSuchSession(new Error(reason)) ||
      /no such file|cannot find file|not found/i.test(reason)
    ) {
      return gone;
    }
    throw unavailable(
      `the Grid could not list or read this browser's downloads (HTTP ${status}): ${gridReason(value?.message ?? "no reason given")}. Its nodes need managed downloads enabled`,
    );
  }
}
