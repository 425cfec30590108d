// The admin API, called in-process for a caller already checked: with the caller's own bearer, or
// for a signed-in cookie with the server's token (it never leaves the process).
import { bearerOf } from "../admin-auth.ts";

/** Answers a request as the whole app would (the admin API included). */
export type Dispatch = (request: Request) => Promise<Response>;

export interface Answer {
  ok: boolean;
  status: number;
  body: unknown;
  /** The API's `error`, or what went wrong reading it. */
  error: string;
}

export const enc = encodeURIComponent;
export const wsPath = (key: string) => `/admin/workspaces/${enc(key)}`;

export class Api {
  constructor(
    private readonly dispatch: Dispatch,
    private readonly request: Request,
    private readonly token: string | null,
  ) {}

  raw(method: string, path: string, signal?: AbortSignal, body?: unknown): Promise<Response> {
    const headers = new Headers();
    const given = bearerOf(this.request);
    if (given !== null) headers.set("authorization", `Bearer ${given}`);
    else if (this.token) headers.set("authorization", `Bearer ${this.token}`);
    if (body !== undefined) headers.set("content-type", "application/json");
    const origin = new URL(this.request.url).origin;
    return this.dispatch(
      new Request(`${origin}${path}`, {
        method,
        headers,
        signal,
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  }

  async call(method: string, path: string, payload?: unknown): Promise<Answer> {
    let res: Response;
    try {
      res = await this.raw(method, path, undefined, payload);
    } catch (err) {
      return { ok: false, status: 500, body: null, error: err instanceof Error ? err.message : String(err) };
    }
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    const said = (body as { error?: unknown } | null)?.error;
    const error = typeof said === "string" ? said : res.ok ? "" : `the admin API answered HTTP ${res.status}`;
    return { ok: res.ok, status: res.status, body, error };
  }

  get(path: string): Promise<Answer> {
    return this.call("GET", path);
  }
}
