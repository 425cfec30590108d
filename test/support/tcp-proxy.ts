// A plain TCP relay that counts the connections made through it: proves a client reuses its
// keep-alive connections rather than opening one per request, and how many BiDi sockets (WebSocket
// upgrades to /session/<id>/se/bidi) are open at a time.
import type { Socket } from "bun";

export interface TcpProxy {
  url: string;
  port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** BiDi sockets opened so far, and open now. */
  readonly bidiOpened: number;
  readonly bidiOpen: number;
  stop(): void;
}

interface Side {
  peer?: Socket<Side>;
  pending: Uint8Array[];
  seen?: boolean;
  bidi?: boolean;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const state = { connections: 0, bidiOpened: 0, bidiOpen: 0 };
  const closed = (client: Socket<Side>) => {
    if (client.data.bidi) state.bidiOpen--;
    client.data.bidi = false;
  };
  const listener = Bun.listen<Side>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      async open(client) {
        state.connections++;
        client.data = { pending: [] };
        const upstream = await Bun.connect<Side>({
          hostname: targetHost,
          port: targetPort,
          socket: {
            data(_s, chunk) {
              client.write(chunk);
            },
            close() {
              client.end();
            },
            error() {
              client.end();
            },
          },
        });
        upstream.data = { peer: client, pending: [] };
        client.data.peer = upstream;
        for (const chunk of client.data.pending) upstream.write(chunk);
        client.data.pending = [];
      },
      data(client, chunk) {
        if (!client.data.seen) {
          client.data.seen = true;
          const head = Buffer.from(chunk.subarray(0, 512)).toString("latin1");
          if (/^GET \/session\/[^/ ]+\/se\/bidi /.test(head) && /upgrade: websocket/i.test(head)) {
            client.data.bidi = true;
            state.bidiOpened++;
            state.bidiOpen++;
          }
        }
        if (client.data.peer) client.data.peer.write(chunk);
        else client.data.pending.push(new Uint8Array(chunk));
      },
      close(client) {
        closed(client);
        client.data.peer?.end();
      },
      error(client) {
        closed(client);
        client.data.peer?.end();
      },
    },
  });
  return {
    url: `http://127.0.0.1:${listener.port}`,
    port: listener.port,
    get connections() {
      return state.connections;
    },
    get bidiOpened() {
      return state.bidiOpened;
    },
    get bidiOpen() {
      return state.bidiOpen;
    },
    stop: () => listener.stop(true),
  };
}

/**
 * Waits up to 5 s for `counter`'s open BiDi sockets to be `want` (a relay or the wire Grid sees a
 * socket close a moment after the server closes it); answers the count then.
 */
export async function bidiSettled(counter: { readonly bidiOpen: number }, want: number): Promise<number> {
  const until = Date.now() + 5_000;
  while (counter.bidiOpen !== want && Date.now() < until) await Bun.sleep(10);
  return counter.bidiOpen;
}
