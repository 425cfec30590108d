// Fixture sites the tests serve themselves. Chromium on the test Grid maps *.example.test to
// 127.0.0.1, so `http://app.example.test:<port>/` reaches this server under a real-looking host.
export interface Fixture {
  port: number;
  /** `http://<host>:<port><path>`; host defaults to app.example.test. */
  url(path?: string, host?: string): string;
  stop(): void;
}

export type Routes = Record<string, (req: Request) => Response | Promise<Response>>;

export const html = (body: string, headers: Record<string, string> = {}) =>
  new Response(`<!doctype html><html><head><meta charset="utf-8">${body}`, {
    headers: { "content-type": "text/html; charset=utf-8", ...headers },
  });

export function serveFixture(routes: Routes): Fixture {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      const route = routes[path];
      if (route) return route(req);
      return new Response("not found", { status: 404 });
    },
  });
  const port = server.port as number;
  return {
    port,
    url: (path = "/", host = "app.example.test") => `http://${host}:${port}${path}`,
    stop: () => server.stop(true),
  };
}
