// One held BiDi connection per live browser, counted where it crosses the wire: a relay in front
// of the real Grid sees every WebSocket upgrade to /se/bidi. After many open/end cycles and reaps,
// none is left open; while a browser lives, its calls share one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { okCaller, startServer, type TestServer } from "../support/server.ts";
import { bidiSettled, startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";

const W = "held";
const CYCLES = 5;
const REAPS = 5;
const site = serveFixture({ "/": () => html("<title>Held</title><p id=p>here") });
let proxy: TcpProxy;
let server: TestServer;

const call = (method: "POST" | "DELETE", path: string, body?: unknown) =>
  okCaller(server, W)(method, path, body);

const settled = (want: number) => bidiSettled(proxy, want);

beforeAll(async () => {
  const grid = new URL(testGridUrl);
  proxy = await startTcpProxy(grid.hostname, Number(grid.port));
  server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.grid.url = proxy.url;
    },
  });
});

afterAll(async () => {
  await server.call("DELETE", "/browser", undefined, W);
  await server.close();
  proxy.stop();
  site.stop();
});

describe("held BiDi connections", () => {
  test("a browser's calls share one connection", async () => {
    await call("POST", "/browser", { url: site.url("/") });
    const opened = proxy.bidiOpened;
    for (let i = 0; i < 5; i++) {
      await call("POST", "/browser/extract", { selector: { css: "#p" } });
      await call("POST", "/browser/navigate", { reload: true });
    }
    expect(proxy.bidiOpened).toBe(opened);
    expect(await settled(1)).toBe(1);
    expect(server.app.services.workspaces.connections.size).toBe(1);
    await call("DELETE", "/browser");
    expect(await settled(0)).toBe(0);
  }, 120_000);

  // Each cycle checks its own socket closed, so a leak on any path shows in the cycle that made it;
  // the 200-cycle soak of the same path runs on sockets to a local endpoint
  // (held-connections-soak.test.ts), as a real Chromium start costs 2-3 s here.
  test(`after ${CYCLES} open/end cycles and ${REAPS} reaps in a row, no socket is left open`, async () => {
    const before = proxy.bidiOpened;
    for (let i = 0; i < CYCLES; i++) {
      await call("POST", "/browser", { url: site.url("/") });
      expect(await settled(1)).toBe(1);
      await call("DELETE", "/browser");
      expect(await settled(0)).toBe(0);
    }
    // Every cycle held exactly one (the first page's), and closed it at the end.
    expect(proxy.bidiOpened - before).toBe(CYCLES);
    await call("POST", "/browser", { url: site.url("/") });
    const reopened = proxy.bidiOpened;
    for (let i = 0; i < REAPS; i++) {
      const id = (await server.app.services.store.get(W))!.session_id;
      // Reaped behind the server's back: the Grid does not close that browser's socket itself.
      expect((await fetch(`${testGridUrl}/session/${id}`, { method: "DELETE" })).status).toBe(200);
      const after = await call("POST", "/browser/extract", { selector: { css: "#p" } });
      expect(after.result).toBe("here");
      // The reaped browser's socket went; the new one's is the only one.
      expect(await settled(1)).toBe(1);
    }
    expect(proxy.bidiOpened - reopened).toBe(REAPS);
    await call("DELETE", "/browser");
    expect(await settled(0)).toBe(0);
    expect(server.app.services.workspaces.connections.size).toBe(0);
  }, 600_000);
});
