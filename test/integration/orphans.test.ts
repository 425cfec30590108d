// A browser is never orphaned (issue 43), against the real Grid, the hub with one slot and a real
// Redis of the test's own: every browser a server opens carries its group's owner tag, which the
// Grid lists in /status; a browser whose workspace record is gone (Redis flushed, the record
// expired) is ended at the next call for its workspace, before a new one opens, and by the periodic
// sweep, which leaves alone a browser another server of the group is still opening. end_browser
// says what the Grid answered; a Grid that does not answer is named so, within grid.open_timeout.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { Socket } from "bun";
import type { Config } from "../../src/config/schema.ts";
import { OWNER_CAP } from "../../src/grid/webdriver-caps.ts";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { type GridLedger, startGridLedger } from "../support/grid-ledger.ts";
import { type PrivateRedis, startRedis } from "../support/redis-server.ts";
import { logLines, startServer, type TestServer } from "../support/server.ts";

const KEY = "orphans-test-store-key-0123456789abcdef";
const W = "orphans-w";
const hubUrl = process.env.TEST_HUB_URL ?? "";

let slowMs = 0;
const site = serveFixture({
  "/": () => html("<title>Home</title><h1>home</h1>"),
  "/slow": async () => {
    await Bun.sleep(slowMs);
    return html("<title>Slow</title><h1>slow</h1>");
  },
});

let redis: PrivateRedis;
const servers: TestServer[] = [];
/** Every browser a test saw (on the Grid or the hub), ended after it whatever it left. */
const seen = new Set<string>();

beforeAll(async () => {
  redis = await startRedis();
});

// Each test's servers go with it (a sweeping server would sweep the next test's browsers), and so
// does every browser it saw: an orphan left behind would hold a shared slot for minutes.
afterEach(async () => {
  for (const s of servers.splice(0)) {
    await s.call("DELETE", "/browser", undefined, W).catch(() => undefined);
    await s.close().catch(() => undefined);
  }
  for (const id of seen)
    for (const grid of [testGridUrl, hubUrl].filter(Boolean))
      await fetch(`${grid}/session/${id}`, { method: "DELETE" }).catch(() => undefined);
  seen.clear();
});

afterAll(async () => {
  await redis.stop();
  site.stop();
});

/** A server of the test's group: one Redis, one key, so every one tags its browsers alike. */
async function server(configure: (c: Config) => void = () => {}): Promise<TestServer> {
  const s = await startServer({
    configure: (c) => {
      c.store.url = redis.url;
      c.store.key = KEY;
      c.grid.orphan_sweep = 0;
      configure(c);
    },
  });
  servers.push(s);
  return s;
}

/** Each browser the Grid holds now, with the capabilities /status lists for it. */
async function onGrid(grid: string): Promise<Map<string, Record<string, unknown>>> {
  const body = (await (await fetch(`${grid}/status`)).json()) as {
    value: { nodes: Array<{ slots: Array<{ session: { sessionId: string; capabilities: any } | null }> }> };
  };
  const out = new Map<string, Record<string, unknown>>();
  for (const slot of body.value.nodes.flatMap((n) => n.slots))
    if (slot.session) out.set(slot.session.sessionId, slot.session.capabilities);
  return out;
}

async function browserOf(s: TestServer): Promise<string> {
  const id = (await s.app.services.store.get(W))?.session_id ?? "";
  if (id) seen.add(id);
  return id;
}

async function until(what: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await what()) return true;
    await Bun.sleep(200);
  }
  return what();
}

describe("a browser whose record is gone", () => {
  test("is tagged with its group and workspace, and ended by the next call before it opens one (Redis flushed)", async () => {
    const s = await server();
    expect((await s.call("POST", "/browser/navigate", { url: site.url("/") }, W)).status).toBe(200);
    const first = await browserOf(s);
    const tag = (await onGrid(testGridUrl)).get(first)?.[OWNER_CAP] as Record<string, unknown>;

    await redis.raw.send("FLUSHALL", []);
    const again = await s.call("POST", "/browser/navigate", { url: site.url("/") }, W);
    expect(again.status).toBe(200);
    const second = await browserOf(s);
    expect(second).not.toBe(first);
    expect(await until(async () => !(await onGrid(testGridUrl)).has(first), 3_000)).toBe(true);
    expect((await onGrid(testGridUrl)).has(second)).toBe(true);
    // Said, without the Grid's id.
    const said = logLines.filter((l) => l.includes(`workspace ${W}: ended 1 browser`));
    expect(said).toHaveLength(1);
    expect(said.join("\n")).not.toContain(first);
    expect(tag).toEqual({ group: expect.stringMatching(/^[0-9a-f]{16}$/), workspace: W });

    expect((await s.call("DELETE", "/browser", undefined, W)).body).toEqual({ ended: true });
  }, 120_000);

  test("end_browser after a flush ends the browser the record lost", async () => {
    const s = await server();
    expect((await s.call("POST", "/browser/navigate", { url: site.url("/") }, W)).status).toBe(200);
    const first = await browserOf(s);
    await redis.raw.send("FLUSHALL", []);
    expect((await s.call("DELETE", "/browser", undefined, W)).body).toEqual({ ended: true });
    expect(await until(async () => !(await onGrid(testGridUrl)).has(first), 3_000)).toBe(true);
    expect((await s.call("DELETE", "/browser", undefined, W)).body).toEqual({ ended: false });
  }, 60_000);

  test("on a full Grid (the hub's one slot), the next call after a flush opens a browser rather than a 503", async () => {
    expect(hubUrl).not.toBe("");
    const s = await server((c) => {
      c.grid.url = hubUrl;
      c.grid.open_timeout = 15;
    });
    expect((await s.call("POST", "/browser/navigate", { url: site.url("/") }, W)).status).toBe(200);
    const first = await browserOf(s);
    await redis.raw.send("FLUSHALL", []);
    const again = await s.call("POST", "/browser/navigate", { url: site.url("/") }, W);
    expect([again.status, again.body.title]).toEqual([200, "Home"]);
    expect(await until(async () => !(await onGrid(hubUrl)).has(first), 3_000)).toBe(true);
    expect((await s.call("DELETE", "/browser", undefined, W)).body).toEqual({ ended: true });
  }, 120_000);

  test("whose record expired (session.ttl passed) is ended by the sweep, with no call", async () => {
    const s = await server((c) => {
      c.grid.orphan_sweep = 1;
    });
    expect((await s.call("POST", "/browser/navigate", { url: site.url("/") }, W)).status).toBe(200);
    const first = await browserOf(s);
    // What session.ttl does to the record, now.
    expect(await redis.raw.send("PEXPIRE", [`sf:${W}`, "1"])).toBe(1);
    await Bun.sleep(50);
    expect(await s.app.services.store.get(W)).toBeNull();
    expect(await until(async () => !(await onGrid(testGridUrl)).has(first), 10_000)).toBe(true);
    const said = logLines.filter((l) => l.includes(`workspace ${W}: the orphan sweep ended 1 browser`));
    expect(said.length).toBeGreaterThanOrEqual(1);
    expect(said.join("\n")).not.toContain(first);
  }, 60_000);

  test("the sweep leaves a browser another server of the group is opening (its record write still to come)", async () => {
    const a = await server();
    const b = await server((c) => {
      c.grid.orphan_sweep = 1;
    });
    // A's open waits on its first page for 4 s, its browser on the Grid and no record naming it.
    slowMs = 4_000;
    const open = a.call("POST", "/browser", { url: site.url("/slow") }, W);
    let opening = "";
    await until(async () => {
      const record = await a.app.services.store.get(W);
      for (const [id, caps] of await onGrid(testGridUrl)) {
        const tag = caps[OWNER_CAP] as { workspace?: string } | undefined;
        if (tag?.workspace === W && id !== record?.session_id) opening = id;
      }
      return opening !== "";
    }, 10_000);
    expect(opening).not.toBe("");
    seen.add(opening);
    const sweepsBefore = logLines.filter((l) => l.includes("orphan sweep")).length;
    const opened = await open;
    slowMs = 0;
    expect([opened.status, opened.body.title]).toEqual([200, "Slow"]);
    expect(await browserOf(a)).toBe(opening);
    expect((await onGrid(testGridUrl)).has(opening)).toBe(true);
    // B swept while A opened (every second), and ended nothing.
    expect(logLines.filter((l) => l.includes("orphan sweep")).length).toBe(sweepsBefore);
    expect(await b.app.services.workspaces.orphans.sweep()).toBe(0);
    expect((await a.call("DELETE", "/browser", undefined, W)).body).toEqual({ ended: true });
  }, 60_000);
});

describe("end_browser says what the Grid answered", () => {
  let held = false;
  let ledger: GridLedger;
  beforeAll(() => {
    ledger = startGridLedger(testGridUrl, {
      hold: (method, path) => held && method === "DELETE" && path.startsWith("/session/"),
    });
  });
  afterAll(async () => {
    held = false;
    await ledger.endAll();
    ledger.stop();
  });

  test("a Grid that never got the end: ended false with why; the browser, no longer the workspace's, is ended once the Grid answers", async () => {
    const s = await server((c) => {
      c.grid.url = ledger.url;
    });
    expect((await s.call("POST", "/browser/navigate", { url: site.url("/") }, W)).status).toBe(200);
    const first = await browserOf(s);
    held = true;
    const t = Date.now();
    const ended = await s.call("DELETE", "/browser", undefined, W);
    expect(Date.now() - t).toBeLessThan(8_000);
    expect(ended.status).toBe(200);
    expect(ended.body).toEqual({
      ended: false,
      reason:
        "the Grid did not confirm the end within 5 s: if it never does, the server ends the browser later (grid.orphan_sweep)",
    });
    expect((await onGrid(testGridUrl)).has(first)).toBe(true);
    expect(await browserOf(s)).toBe("");
    held = false;
    expect(await s.app.services.workspaces.orphans.sweep()).toBe(1);
    // The Grid's /status catches up with the end a moment after it answered.
    expect(await until(async () => !(await onGrid(testGridUrl)).has(first), 5_000)).toBe(true);
  }, 60_000);

  test("a browser the Grid had ended already: ended true", async () => {
    const s = await server((c) => {
      c.grid.url = ledger.url;
    });
    expect((await s.call("POST", "/browser/navigate", { url: site.url("/") }, W)).status).toBe(200);
    const first = await browserOf(s);
    await fetch(`${testGridUrl}/session/${first}`, { method: "DELETE" });
    expect((await s.call("DELETE", "/browser", undefined, W)).body).toEqual({ ended: true });
  }, 60_000);
});

describe("a Grid whose HTTP hangs", () => {
  // Takes every connection and every byte, and never says a word.
  const sockets: Socket[] = [];
  const silent = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (sock) => {
        sockets.push(sock);
      },
      data: () => {},
    },
  });
  afterAll(() => {
    for (const sock of sockets) sock.end();
    silent.stop(true);
  });

  test("a call that opens a browser answers within grid.open_timeout, saying the Grid does not answer", async () => {
    const s = await startServer({
      dataDir: false,
      configure: (c) => {
        c.grid.url = `http://127.0.0.1:${silent.port}`;
        c.grid.open_timeout = 6;
      },
    });
    try {
      const t = Date.now();
      const res = await s.call("POST", "/browser/navigate", { url: site.url("/") }, W);
      const ms = Date.now() - t;
      expect(res.status).toBe(503);
      expect(res.body.error).toBe(
        `the Grid at http://127.0.0.1:${silent.port} did not answer: no new browser within 6 s (grid.open_timeout), and no answer to GET /status either. Check that the Grid is up and reachable, then retry`,
      );
      expect(ms).toBeGreaterThan(5_500);
      expect(ms).toBeLessThan(7_000);
    } finally {
      await s.close();
    }
  }, 60_000);
});
