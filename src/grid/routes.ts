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

/** A route with its glob made once. */
export interface Routed {
  route: Route;
  match: RegExp;
}

/** A URL glob as a regular expression on the whole URL. */
export function globOf(pattern: string): RegExp {
  const body = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`, "s");
}

/** The routes, their globs made, in order; null when there are none (nothing is intercepted for them). */
export function routesOf(routes: readonly Route[] | undefined): Routed[] | null {
  return routes?.length ? routes.map((route) => ({ route, match: globOf(route.url) })) : null;
}

/** The first route whose glob matches `url` (its fragment left out), or null. */
export function routeFor(routes: readonly Routed[] | null, url: string): Route | null {
  if (!routes) return null;
  const hash = url.indexOf("#");
  const bare = hash < 0 ? url : url.slice(0, hash);
  return routes.find((r) => r.match.test(bare))?.route ?? null;
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
