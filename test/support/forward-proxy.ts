// A forward HTTP proxy for tests: it takes absolute-form requests (GET http://host:port/path),
// asks for Basic credentials with a 407 when given a user, sends *.example.test to 127.0.0.1 (as the
// Grid's browsers do), and remembers what went through it.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export interface ForwardProxy {
  port: number;
  /** The URLs it carried. */
  carried: string[];
  /** Requests it refused for missing or wrong credentials. */
  challenged: number;
  stop(): void;
}

export async function startForwardProxy(auth?: { user: string; pass: string }): Promise<ForwardProxy> {
  const expected = auth ? `Basic ${Buffer.from(`${auth.user}:${auth.pass}`).toString("base64")}` : null;
  const state: ForwardProxy = { port: 0, carried: [], challenged: 0, stop: () => {} };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    if (expected && req.headers["proxy-authorization"] !== expected) {
      state.challenged++;
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="test proxy"', "content-length": "0" });
      res.end();
      return;
    }
    const target = new URL(req.url ?? "/");
    state.carried.push(target.href);
    const upstream = new URL(target.href);
    if (upstream.hostname.endsWith(".example.test")) upstream.hostname = "127.0.0.1";
    try {
      const got = await fetch(upstream, {
        method: req.method,
        headers: { host: target.host, "x-via-test-proxy": "1" },
        redirect: "manual",
      });
      const headers: Record<string, string> = {};
      got.headers.forEach((v, k) => {
        if (k !== "content-encoding" && k !== "transfer-encoding" && k !== "content-length") headers[k] = v;
      });
      const body = Buffer.from(await got.arrayBuffer());
      res.writeHead(got.status, { ...headers, "content-length": String(body.length) });
      res.end(body);
    } catch {
      res.writeHead(502);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.port = (server.address() as { port: number }).port;
  state.stop = () => server.close();
  return state;
}
