// A proxy in front of a Grid that keeps a ledger of the browsers opened through it: each
// `POST /session` answer's id, and each `DELETE /session/<id>`. Everything else passes as it is,
// BiDi's WebSocket included. `leaked()` asks the Grid itself which of the ledger's browsers still
// live, so a test (or the bench) can prove how many browsers a group of servers left running, on a
// Grid other work shares. With `hold`, it is a Grid that never gets the requests `hold` names: they
// are taken and never answered, nor passed on.
import type { ServerWebSocket } from "bun";

export interface GridLedger {
  url: string;
  /** Every browser opened through the proxy, in order. */
  readonly opened: string[];
  /** Browsers the servers asked the Grid to end. */
  readonly ended: Set<string>;
  /** The ledger's browsers the Grid says are alive now. */
  alive(): Promise<string[]>;
  /** Ends (on the Grid) every browser of the ledger still alive; the count. */
  endAll(): Promise<number>;
  stop(): void;
}

interface Pipe {
  target: string;
  up: WebSocket | null;
  early: Array<string | Buffer>;
}

export function startGridLedger(
  grid: string,
  opts: { hold?: (method: string, path: string) => boolean } = {},
): GridLedger {
  const opened: string[] = [];
  const ended = new Set<string>();
  const wsBase = grid.replace(/^http/, "ws");
  const server = Bun.serve<Pipe, never>({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 255,
    async fetch(request, srv) {
      const url = new URL(request.url);
      if (request.headers.get("upgrade")?.toLowerCase() === "websocket") {
        const ok = srv.upgrade(request, {
          data: { target: `${wsBase}${url.pathname}${url.search}`, up: null, early: [] },
        });
        return ok ? undefined : new Response("upgrade failed", { status: 400 });
      }
      if (opts.hold?.(request.method, url.pathname)) return new Promise<Response>(() => {});
      const headers = new Headers(request.headers);
      headers.delete("host");
      const body =
        request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      const res = await fetch(`${grid}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body,
        redirect: "manual",
        decompress: false,
      });
      const m = /^\/session\/([^/]+)$/.exec(url.pathname);
      if (request.method === "POST" && url.pathname === "/session") {
        const text = await res.text();
        try {
          const id = JSON.parse(text)?.value?.sessionId;
          if (typeof id === "string") opened.push(id);
        } catch {}
        return new Response(text, { status: res.status, headers: res.headers });
      }
      if (request.method === "DELETE" && m) ended.add(decodeURIComponent(m[1] as string));
      return new Response(res.body, { status: res.status, headers: res.headers });
    },
    websocket: {
      open(ws: ServerWebSocket<Pipe>) {
        const up = new WebSocket(ws.data.target);
        ws.data.up = up;
        up.onopen = () => {
          for (const m of ws.data.early.splice(0)) up.send(m);
        };
        up.onmessage = (e) =>
          ws.send(typeof e.data === "string" ? e.data : new Uint8Array(e.data as ArrayBuffer));
        up.onclose = () => ws.close();
        up.onerror = () => ws.close();
      },
      message(ws, message) {
        const up = ws.data.up;
        if (up && up.readyState === WebSocket.OPEN) up.send(message);
        else ws.data.early.push(message);
      },
      close(ws) {
        ws.data.up?.close();
      },
    },
  });
  const isAlive = async (id: string) => {
    const res = await fetch(`${grid}/session/${id}/window`).catch(() => null);
    if (!res) return false;
    const body = (await res.json().catch(() => null)) as { value?: { error?: string } } | null;
    return res.ok || (body?.value?.error !== undefined && body.value.error !== "invalid session id");
  };
  return {
    url: `http://127.0.0.1:${server.port}`,
    opened,
    ended,
    async alive() {
      const out: string[] = [];
      for (const id of opened) if (await isAlive(id)) out.push(id);
      return out;
    },
    async endAll() {
      let n = 0;
      for (const id of opened) {
        if (!(await isAlive(id))) continue;
        await fetch(`${grid}/session/${id}`, { method: "DELETE" }).catch(() => undefined);
        n++;
      }
      return n;
    },
    stop: () => server.stop(true),
  };
}
