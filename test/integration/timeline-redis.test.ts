// Without a data dir, a timeline is kept beside the records in Redis: one list per workspace behind
// a mark no workspace name can start with (so it is never listed as a workspace), trimmed to
// timeline.keep, living as long as a record (session.ttl), shared by every server of a group, and
// gone with Forget.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { emptyRecord } from "../../src/store/record.ts";
import { RedisStore } from "../../src/store/redis.ts";
import { testRedisUrl } from "../support/env.ts";
import { startServer, type TestServer, TOKEN } from "../support/server.ts";

const prefix = `sf-tl-${process.pid}-${Date.now()}:`;
const W = "redis-timeline";
let a: TestServer;
let b: TestServer;
let raw: RedisClient;

const serve = () =>
  startServer({
    dataDir: false,
    store: new RedisStore({ url: testRedisUrl, prefix, ttl: 600 }),
    configure: (c) => {
      c.store.url = testRedisUrl;
      c.session.ttl = 600;
      c.timeline.keep = 3;
    },
  });

beforeAll(async () => {
  a = await serve();
  b = await serve();
  raw = new RedisClient(testRedisUrl);
});

afterAll(async () => {
  const keys = (await raw.send("KEYS", [`${prefix}*`])) as string[];
  if (keys.length) await raw.send("DEL", keys);
  raw.close();
  await a.close();
  await b.close();
});

const timeline = async (s: TestServer) =>
  (
    await (
      await fetch(`${s.url}/admin/workspaces/${W}/timeline`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
    ).json()
  ).entries as any[];

describe("a timeline in Redis", () => {
  test("calls on either server of a group append to one list, numbered in order, the newest timeline.keep kept", async () => {
    // A record for the workspace first: a name nobody has used gets no timeline (issue 20).
    await a.app.services.store.update(W, () => emptyRecord());
    // Calls that fail before any browser is opened: no Grid needed to make entries.
    await a.call("POST", "/browser/navigate", { url: "not a url" }, W);
    await b.call("POST", "/browser/navigate", { url: "still not one" }, W);
    await a.call("DELETE", "/flows/x", undefined, W);
    await b.call("POST", "/browser/navigate", { url: "nope" }, W);
    const seen = await timeline(b);
    expect(seen.map((e) => [e.n, e.tool, e.status])).toEqual([
      [4, "navigate", 400],
      [3, "delete_flow", 400],
      [2, "navigate", 400],
    ]);
    expect(seen[2].args).toEqual({ url: "still not one" });
    expect(await timeline(a)).toEqual(seen);
    // Beside the records, never one of them; and it expires as a record does.
    expect(await a.app.services.store.keys()).toEqual([W]);
    const ttl = Number(await raw.send("TTL", [`${prefix}!timeline:${W}`]));
    expect(ttl).toBeGreaterThan(590);
    expect(ttl).toBeLessThanOrEqual(600);
    expect(Number(await raw.send("LLEN", [`${prefix}!timeline:${W}`]))).toBe(3);
  });

  test("Forget takes it with the record", async () => {
    const res = await fetch(`${a.url}/admin/workspaces/${W}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(200);
    expect(Number(await raw.send("EXISTS", [`${prefix}!timeline:${W}`]))).toBe(0);
    expect(await a.app.services.timeline.all(W)).toEqual([]);
  });
});
