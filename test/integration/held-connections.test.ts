// One held BiDi connection per live browser, counted where it crosses the wire: a relay in front
// of the real Grid sees every WebSocket upgrade to /se/bidi. After many open/end cycles and reaps,
// none is left open; while a browser lives, its calls share one.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { startServer, type TestServer } from "../support/server.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.ts";

const W = "held";
const CYCLES = 200;
const REAPS = 20;
// The cycles run in two workspaces side by side (the Grid's two slots), half each.
const LANES = ["held-a", "held-b"];
const site = serveFixture({ "/": () => html("<title>Held</title><p id=p>here") });
let proxy: TcpProxy;
let server: TestServer;

const call = async (method: "POST" | "DELETE", path: string, body?: unknown, w = W) => {
  const res = await server.call(method, path, body, w);
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Record<string, unknown>;
};

// The relay sees a socket close a moment after the server closes it.
async function settled(want: number, ok = (open: number) => open === want): Promise<number> {
  const until = Date.now() + 5_000;
  while (!ok(proxy.bidiOpen) && Date.now() < until) await Bun.sleep(20);
  return proxy.bidiOpen;
}

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
  for (const w of [W, ...LANES]) await server.call("DELETE", "/browser", undefined, w);
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

  test(`after ${CYCLES} open/end cycles and ${REAPS} reaps, no socket is left open`, async () => {
    const before = proxy.bidiOpened;
    const cycles = async (w: string) => {
      for (let i = 0; i < CYCLES / LANES.length; i++) {
        await call("POST", "/browser", { url: site.url("/") }, w);
        await call("DELETE", "/browser", undefined, w);
      }
    };
    await Promise.all(LANES.map(cycles));
    expect(await settled(0)).toBe(0);
    // Every cycle held exactly one (the first page's), and closed it at the end.
    expect(proxy.bidiOpened - before).toBe(CYCLES);
    const reaps = async (w: string) => {
      for (let i = 0; i < REAPS / LANES.length; i++) {
        await call("POST", "/browser", { url: site.url("/") }, w);
        const id = (await server.app.services.store.get(w))!.session_id;
        // Reaped behind the server's back: the Grid does not close that browser's socket itself.
        expect((await fetch(`${testGridUrl}/session/${id}`, { method: "DELETE" })).status).toBe(200);
        const after = await call("POST", "/browser/extract", { selector: { css: "#p" } }, w);
        expect(after.result).toBe("here");
        // The reaped browser's socket is closed: at most one per lane is open.
        expect(await settled(LANES.length, (open) => open <= LANES.length)).toBeLessThanOrEqual(LANES.length);
        await call("DELETE", "/browser", undefined, w);
      }
    };
    const opened = proxy.bidiOpened;
    await Promise.all(LANES.map(reaps));
    // Each reap held two (the reaped browser's and its replacement's), and none is left.
    expect(proxy.bidiOpened - opened).toBe(2 * REAPS);
    expect(await settled(0)).toBe(0);
    expect(server.app.services.workspaces.connections.size).toBe(0);
  }, 900_000);
});
