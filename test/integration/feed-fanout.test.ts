// The live feed drains nothing: a change's row is read once for every stream open (one Grid listing
// per flush, not one per stream), and past MAX_FEEDS streams a new one is a 429. Measured by counts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { MAX_FEEDS } from "../../src/surfaces/feed.ts";
import { startServer, type TestServer, TOKEN } from "../support/server.ts";

let server: TestServer;
let listings = 0;
let existsChecks = 0;

beforeAll(async () => {
  server = await startServer({ dataDir: false });
  const s = server.app.services;
  s.grid.sessions = async () => {
    listings++;
    return new Set<string>();
  };
  const get = s.store.get.bind(s.store);
  s.store.get = async (key: string) => {
    if (key.startsWith("feed-")) existsChecks++;
    return get(key);
  };
});

afterAll(async () => {
  await server.close();
});

test("40 streams and 20 changes: 20 rows read and 20 listings, each stream gets all 20", async () => {
  const s = server.app.services;
  const got: number[] = Array(40).fill(0);
  const stops = got.map((_, i) =>
    server.app.feeds.open(null, {
      row: () => {
        got[i]!++;
      },
      beat: () => {},
      screen: () => {},
    }),
  );
  for (let i = 0; i < 20; i++) {
    s.events.changed(`feed-${i}`);
    // Past the 50 ms coalescing: each change is its own flush.
    await Bun.sleep(70);
  }
  await Bun.sleep(150);
  for (const stop of stops) stop();
  expect(got).toEqual(Array(40).fill(20));
  expect(listings).toBe(20);
  expect(existsChecks).toBe(20);
});

test(`past ${MAX_FEEDS} open streams a new one is a 429 that says what to do`, async () => {
  const stops = Array.from({ length: MAX_FEEDS }, () =>
    server.app.feeds.open(null, { row: () => {}, beat: () => {}, screen: () => {} }),
  );
  const res = await fetch(`${server.url}/admin/events`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(429);
  expect(((await res.json()) as { error: string }).error).toContain("live feeds are open");
  for (const stop of stops) stop();
  const ok = new AbortController();
  const again = await fetch(`${server.url}/admin/events`, {
    headers: { authorization: `Bearer ${TOKEN}` },
    signal: ok.signal,
  });
  expect(again.status).toBe(200);
  ok.abort();
});
