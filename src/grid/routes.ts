// A workspace's network routes: requests whose URL matches a route's glob are answered by the
// browser itself with the route's status, headers and body, or failed (block), never sent out. The
// interceptor (net-rules.ts) asks `routeFor` for each request the navigation policy let through.
import type { BidiSocket } from "./bidi.ts";

/** One route as open_session takes it and the record keeps it. */
export interface Route {
  /** A glob on the whole URL (its fragment left out): `*` is any text, everything else itself. */
  url: string;
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Fail the request (the page sees a network error) rather than answer it. */
  block?: boolean;
}

/** A route with its glob cut once at its stars. */
export interface Routed {
  route: Route;
  parts: string[];
}

/**
 * Whether `s` matches the glob cut into `parts` (the text between its stars): the first part starts
 * it, the last ends it, the ones between come in order, each found leftmost. Linear in `s` for each
 * part, never backtracking, whatever the glob (a regular expression of many stars could take
 * exponential time on a long URL, on every request).
 */
export function globMatches(parts: readonly string[], s: string): boolean {
  const first = parts[0] ?? "";
  if (parts.length === 1) return s === first;
  const last = parts[parts.length - 1] ?? "";
  if (s.length < first.length + last.length || !s.startsWith(first) || !s.endsWith(last)) return false;
  const end = s.length - last.length;
  let at = first.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i] ?? "";
    const j = s.indexOf(part, at);
    if (j < 0 || j + part.length > end) return false;
    at = j + part.length;
  }
  return true;
}

/** The routes, their globs cut, in order; null when there are none (nothing is intercepted for them). */
export function routesOf(routes: readonly Route[] | undefined): Routed[] | null {
  return routes?.length ? routes.map((route) => ({ route, parts: route.url.split("*") })) : null;
}

/** The first route whose glob matches `url` (its fragment left out), or null. */
export function routeFor(routes: readonly Routed[] | null, url: string): Route | null {
  if (!routes) return null;
  const hash = url.indexOf("#");
  const bare = hash < 0 ? url : url.slice(0, hash);
  return routes.find((r) => globMatches(r.parts, bare))?.route ?? null;
}

/** Answers the blocked `request` as `route` says: its response, or a failure. */
export function answer(socket: BidiSocket, request: string, route: Route): Promise<unknown> {
  if (route.block) return socket.send("network.failRequest", { request });
  const headers = Object.entries(route.headers ?? {}).map(([name, value]) => ({
    name,
    value: { type: "string" as const, value },
  }));
  return socket
    .send("network.provideResponse", {
      request,
      statusCode: route.status ?? 200,
      headers,
      body: { type: "string", value: route.body ?? "" },
    })
    .catch(() => socket.send("network.failRequest", { request }));
}
