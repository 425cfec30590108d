// The held-connection leak test at the socket layer, fast: the real server against a Grid on the wire
// with no browsers behind it (test/support/wire-grid.ts: real HTTP and real WebSockets, each
// browser's BiDi answered by a FakeBidi). Hundreds of open/end cycles and reaps, counted where the
// sockets cross the wire; held-connections.test.ts proves the same against the real Grid, fewer times.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { okCaller, startServer, type TestServer } from "../support/server.ts";
import { bidiSettled } from "../support/tcp-proxy.ts";
import { startWireGrid, type WireGrid } from "../support/wire-grid.ts";

const W = "soak";
const CYCLES = 200;
const REAPS = 20;
const site = serveFixture({ "/": () => html("<title>Soak</title><p id=p>here") });
const HOME = site.url("/");
let grid: WireGrid;
let server: TestServer;

const call = (method: "POST" | "DELETE", path: string, body?: unknown) =>
  okCaller(server, W)(method, path, body);

const sessionId = async () => (await server.app.services.store.get(W))?.session_id ?? null;

const settled = (want: number) => bidiSettled(grid, want);

beforeAll(async () => {
  grid = startWireGrid({ titles: { [HOME]: "Soak" } });
  server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.grid.url = grid.url;
    },
  });
});

afterAll(async () => {
  await server.call("DELETE", "/browser", undefined, W);
  await server.close();
  grid.stop();
  site.stop();
});

describe("held BiDi connections, soaked over the wire", () => {
  test("a browser's calls share its one socket", async () => {
    const before = grid.bidiOpened;
    await call("POST", "/browser", { url: HOME });
    for (let i = 0; i < 20; i++) {
      const next = site.url(`/?call=${i}`);
      expect((await call("POST", "/browser/navigate", { url: next })).url).toBe(next);
    }
    expect(grid.bidiOpened - before).toBe(1);
    expect(grid.bidiOpen).toBe(1);
    expect(server.app.services.workspaces.connections.size).toBe(1);
    await call("DELETE", "/browser");
    expect(await settled(0)).toBe(0);
  });

  test(`${CYCLES} open/end cycles each hold one socket and leave none open`, async () => {
    const before = grid.bidiOpened;
    for (let i = 0; i < CYCLES; i++) {
      const opened = await call("POST", "/browser", { url: HOME });
      expect(opened.url).toBe(HOME);
      expect(opened.title).toBe("Soak");
      // The first page went over the browser's one socket, still held.
      expect(grid.bidiOpen).toBe(1);
      await call("DELETE", "/browser");
    }
    expect(await settled(0)).toBe(0);
    expect(grid.bidiOpened - before).toBe(CYCLES);
    expect(server.app.services.workspaces.connections.size).toBe(0);
    expect([...grid.browsers.values()].filter((b) => b.alive)).toHaveLength(0);
    // Every call the server made was one the wire Grid speaks.
    expect(grid.unknown).toEqual([]);
    expect(grid.failed).toEqual([]);
  }, 60_000);

  test(`${REAPS} browsers reaped behind the server's back are reopened, and no socket is left open`, async () => {
    const before = grid.bidiOpened;
    for (let i = 0; i < REAPS; i++) {
      await call("POST", "/browser", { url: HOME });
      const reaped = await sessionId();
      expect(reaped).not.toBeNull();
      grid.reap(reaped as string);
      // The reaped browser's socket stays open (as the real Grid's does) until the server closes it.
      expect(grid.bidiOpen).toBe(1);
      const next = site.url(`/?reap=${i}`);
      const after = await call("POST", "/browser/navigate", { url: next });
      expect(after.url).toBe(next);
      const reopened = await sessionId();
      expect(reopened).not.toBe(reaped);
      expect(grid.browsers.get(reopened as string)?.alive).toBe(true);
      // Only the replacement's socket is open.
      expect(await settled(1)).toBe(1);
      await call("DELETE", "/browser");
    }
    expect(await settled(0)).toBe(0);
    // One socket for each browser opened: the reaped one and its replacement.
    expect(grid.bidiOpened - before).toBe(2 * REAPS);
    expect(server.app.services.workspaces.connections.size).toBe(0);
    // Every call the server made was one the wire Grid speaks.
    expect(grid.unknown).toEqual([]);
    expect(grid.failed).toEqual([]);
  }, 60_000);
});
