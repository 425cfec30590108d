// A Basic-auth gate in front of the test Grid, for HTTP and the BiDi WebSocket: it proves a Grid URL
// with `user:pass@` authenticates every request and that the credentials travel as a header.
import type { ServerWebSocket } from "bun";

export interface AuthProxy {
  /** `http://<user>:<pass>@127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Requests refused for missing or wrong credentials. */
  refused: number;
  stop(): void;
}

interface Pipe {
  path: string;
  upstream?: WebSocket;
  queue: (string | Buffer)[];
}

export function startAuthProxy(target: string, user: string, pass: string): AuthProxy {
  const expected = `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
  const upstreamWs = target.replace(/^http/, "ws");
  const state = { refused: 0 };
  const server = Bun.serve<Pipe>({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req, srv) {
      const url = new URL(req.url);
      if (req.headers.get("authorization") !== expected) {
        state.refused++;
        return new Response("authentication required", {
          status: 401,
          headers: { "www-authenticate": "Basic" },
        });
      }
      if (req.headers.get("upgrade")?.toLowerCase() === "websocket") {
        return srv.upgrade(req, { data: { path: url.pathname, queue: [] } })
          ? undefined
          : new Response("no upgrade", { status: 400 });
      }
      const headers = new Headers(req.headers);
      headers.delete("authorization");
      headers.delete("host");
      return fetch(`${target}${url.pathname}${url.search}`, {
        method: req.method,
        headers,
        body: req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer(),
      });
    },
    websocket: {
      open(ws: ServerWebSocket<Pipe>) {
        const up = new WebSocket(`${upstreamWs}${ws.data.path}`);
        ws.data.upstream = up;
        up.onopen = () => {
          for (const m of ws.data.queue) up.send(m);
          ws.data.queue = [];
        };
        up.onmessage = (ev) => ws.send(ev.data as string);
        up.onclose = () => ws.close();
      },
      message(ws: ServerWebSocket<Pipe>, msg) {
        const up = ws.data.upstream;
        if (up && up.readyState === WebSocket.OPEN) up.send(msg);
        else ws.data.queue.push(msg);
      },
      close(ws: ServerWebSocket<Pipe>) {
        ws.data.upstream?.close();
      },
    },
  });
  const port = server.port as number;
  return {
    url: `http://${user}:${pass}@127.0.0.1:${port}`,
    port,
    get refused() {
      return state.refused;
    },
    stop: () => server.stop(true),
  };
}
