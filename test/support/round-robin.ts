// A round-robin HTTP proxy in front of several servers: each request goes to the next server in
// turn, its body and its response streamed (an MCP event stream passes as it is written). It keeps
// nothing per client: no sticky sessions, as the group's proxy is told to run.

export interface RoundRobin {
  url: string;
  port: number;
  /** Requests sent to each upstream so far, in the order they were given. */
  readonly sent: number[];
  /** Which upstream the next requests go to (a test may pin a request). */
  next: number;
  stop(): void;
}

export function startRoundRobin(upstreams: string[]): RoundRobin {
  const state = { next: 0, sent: upstreams.map(() => 0) };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 255,
    async fetch(request) {
      const i = state.next % upstreams.length;
      state.next = i + 1;
      state.sent[i] = (state.sent[i] ?? 0) + 1;
      const url = new URL(request.url);
      const target = `${upstreams[i]}${url.pathname}${url.search}`;
      const headers = new Headers(request.headers);
      headers.delete("host");
      try {
        const res = await fetch(target, {
          method: request.method,
          headers,
          body: request.body,
          redirect: "manual",
          // @ts-expect-error Bun streams a request body with duplex "half"
          duplex: "half",
          decompress: false,
        });
        return new Response(res.body, { status: res.status, headers: res.headers });
      } catch {
        return new Response("the upstream did not answer", { status: 502 });
      }
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port as number,
    get sent() {
      return state.sent;
    },
    get next() {
      return state.next;
    },
    set next(n: number) {
      state.next = n;
    },
    stop: () => server.stop(true),
  };
}
