// A plain TCP relay that counts the connections made through it: proves a client reuses its
// keep-alive connections rather than opening one per request.
import type { Socket } from "bun";

export interface TcpProxy {
  url: string;
  port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  stop(): void;
}

interface Side {
  peer?: Socket<Side>;
  pending: Uint8Array[];
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const state = { connections: 0 };
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
        if (client.data.peer) client.data.peer.write(chunk);
        else client.data.pending.push(new Uint8Array(chunk));
      },
      close(client) {
        client.data.peer?.end();
      },
      error(client) {
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
    stop: () => listener.stop(true),
  };
}
