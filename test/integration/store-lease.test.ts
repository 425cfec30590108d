// Leases, MCP sessions and marks in every record store (SQLite on a file, in memory, the test
// Redis), on real time: one holder at a time, served in the order they came, a dead holder's or a
// dead waiter's place given up after the lease's time, fencing tokens that refuse a stale write,
// and three processes counting under one lease without losing an increment.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RedisClient } from "bun";
import { AppError, LeaseLost } from "../../src/errors.ts";
import { emptyRecord, type WorkspaceRecord } from "../../src/store/record.ts";
import { RedisStore } from "../../src/store/redis.ts";
import { LEASE_QUEUE } from "../../src/store/redis-keys.ts";
import { LEASE_DEADLINES } from "../../src/store/redis-leases.ts";
import { SqliteStore } from "../../src/store/sqlite.ts";
import type { RecordStore } from "../../src/store/types.ts";
import { Leases, type WaitOptions } from "../../src/workspaces/lease.ts";
import { leased } from "../../src/workspaces/pipeline.ts";
import { testRedisUrl } from "../support/env.ts";
import { type PrivateRedis, startRedis } from "../support/redis-server.ts";

const WORKER = join(import.meta.dir, "../support/lease-worker.ts");
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "sf-lease-test-"));
  dirs.push(d);
  return d;
};
const raw = new RedisClient(testRedisUrl);
let prefixes = 0;
const prefix = () => `sf-test-lease-${process.pid}-${++prefixes}:`;

interface Harness {
  name: string;
  /** A second store on the same data: another server of the group. */
  open(): { a: RecordStore; b: RecordStore; target: string; prefix: string };
}
const harnesses: Harness[] = [
  {
    name: "sqlite-file",
    open() {
      const path = join(tempDir(), "records.sqlite");
      return { a: new SqliteStore({ path }), b: new SqliteStore({ path }), target: path, prefix: "" };
    },
  },
  {
    name: "sqlite-memory",
    open() {
      const s = new SqliteStore();
      return { a: s, b: s, target: "", prefix: "" };
    },
  },
  {
    name: "redis",
    open() {
      const p = prefix();
      return {
        a: new RedisStore({ url: testRedisUrl, prefix: p }),
        b: new RedisStore({ url: testRedisUrl, prefix: p }),
        target: testRedisUrl,
        prefix: p,
      };
    },
  },
];

const opened: Array<{ a: RecordStore; b: RecordStore; prefix: string }> = [];
afterEach(async () => {
  for (const o of opened.splice(0)) {
    if (o.prefix) {
      const keys = (await raw.send("KEYS", [`${o.prefix}*`])) as string[];
      if (keys.length) await raw.send("DEL", keys);
    }
    await o.a.close();
    if (o.b !== o.a) await o.b.close();
  }
});
afterAll(() => {
  raw.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const pair = (h: Harness) => {
  const o = h.open();
  opened.push(o);
  return o;
};
const withN = (r: WorkspaceRecord | null, n: number): WorkspaceRecord => {
  const base = r ?? emptyRecord();
  return { ...base, settings: { ...base.settings, n } };
};

for (const h of harnesses) {
  describe(`leases in the ${h.name} store`, () => {
    test("one holder at a time; a release lets the next in; tokens only grow", async () => {
      const { a, b } = pair(h);
      const t1 = await a.takeLease("w", "x", 5000);
      expect(t1).toBeGreaterThan(0);
      expect(await b.takeLease("w", "y", 5000)).toBeNull();
      // Another name is another lease.
      const other = await b.takeLease("v", "z", 5000);
      expect(other).toBeGreaterThan(t1!);
      await b.releaseLease("w", 999_999); // not the holder's token: nothing happens
      expect(await b.takeLease("w", "y", 5000)).toBeNull();
      await a.releaseLease("w", t1!);
      const t2 = await b.takeLease("w", "y", 5000);
      expect(t2).toBeGreaterThan(other!);
      expect(await a.renewLease("w", t1!, 5000)).toBe(false);
      expect(await b.renewLease("w", t2!, 5000)).toBe(true);
    });

    test("a lease taken reading comes with its record as another server last wrote it; a wait reads nothing", async () => {
      const { a, b } = pair(h);
      const first = await a.takeLeaseReading("w", "x", 5000);
      expect(first).toMatchObject({ record: null });
      await b.update("w", (r) => withN(r, 1));
      expect(await b.takeLeaseReading("w", "y", 5000)).toBeNull();
      await a.releaseLease("w", first!.token);
      await b.update("w", (r) => withN(r, 2));
      const granted = await b.takeLeaseReading("w", "y", 5000);
      expect(granted?.token).toBeGreaterThan(first!.token);
      expect(granted?.record?.settings.n).toBe(2);
      const fence = { name: "w", token: granted!.token };
      expect((await b.update("w", (r) => withN(r, 3), { fence }))?.settings.n).toBe(3);
    });

    test("takers are served in the order they came, whichever server asks", async () => {
      const { a, b } = pair(h);
      const held = (await a.takeLease("w", "first", 5000))!;
      // Three wait, on two servers.
      for (const [s, t] of [
        [b, "second"],
        [a, "third"],
        [b, "fourth"],
      ] as const)
        expect(await s.takeLease("w", t, 5000)).toBeNull();
      await a.releaseLease("w", held);
      const order: string[] = [];
      const left = new Map<string, RecordStore>([
        ["fourth", b],
        ["third", a],
        ["second", b],
      ]);
      while (left.size) {
        // Everyone asks, latest first: only the one at the head gets it.
        let won: [string, number] | null = null;
        for (const [t, s] of left) {
          const token = await s.takeLease("w", t, 5000);
          if (token !== null) {
            expect(won).toBeNull();
            won = [t, token];
          }
        }
        expect(won).not.toBeNull();
        order.push(won![0]);
        left.delete(won![0]);
        await a.releaseLease("w", won![1]);
      }
      expect(order).toEqual(["second", "third", "fourth"]);
    });

    test("a holder that stops renewing loses the lease after its time; a waiter that stops asking loses its place", async () => {
      const { a, b } = pair(h);
      const dead = (await a.takeLease("w", "dead", 300))!;
      expect(await b.takeLease("w", "gone", 300)).toBeNull(); // then never asks again
      expect(await b.takeLease("w", "next", 300)).toBeNull();
      await Bun.sleep(200);
      expect(await b.takeLease("w", "next", 300)).toBeNull();
      await Bun.sleep(250);
      // The holder's 300 ms are up, and so is the silent waiter's place.
      const token = await b.takeLease("w", "next", 300);
      expect(token).toBeGreaterThan(dead);
      expect(await a.renewLease("w", dead, 300)).toBe(false);
    });

    test("a fenced write lands only while its lease is held with its token", async () => {
      const { a, b } = pair(h);
      const token = (await a.takeLease("w", "x", 5000))!;
      const fence = { name: "w", token };
      await a.update("w", (r) => withN(r, 1), { fence });
      expect((await b.get("w"))?.settings.n).toBe(1);
      // An admin's End elsewhere breaks it: the holder's writes are refused from here on.
      await b.breakLease("w");
      const refused = await a.update("w", (r) => withN(r, 2), { fence }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(LeaseLost);
      expect((refused as AppError).status).toBe(503);
      expect((refused as Error).message).toBe(
        "this call no longer holds workspace w (its lease ran out or an admin ended the workspace's browser): nothing more was written; retry the call",
      );
      expect((await b.get("w"))?.settings.n).toBe(1);
      // A new holder's token fences its own writes; unfenced writes go on as before.
      const next = (await b.takeLease("w", "y", 5000))!;
      await b.update("w", (r) => withN(r, 3), { fence: { name: "w", token: next } });
      expect(await a.update("w", (r) => withN(r, 4), { fence }).catch((e: unknown) => e)).toBeInstanceOf(
        LeaseLost,
      );
      await a.update("w", (r) => withN(r, 5));
      expect((await b.get("w"))?.settings.n).toBe(5);
    });

    test("a fenced write after the lease ran out is refused", async () => {
      const { a } = pair(h);
      const token = (await a.takeLease("w", "x", 200))!;
      await Bun.sleep(300);
      const refused = await a
        .update("w", (r) => withN(r, 1), { fence: { name: "w", token } })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(LeaseLost);
      expect(await a.get("w")).toBeNull();
    });

    test("leases, queues, MCP sessions and marks are never among the record keys", async () => {
      const { a } = pair(h);
      await a.set("rec", emptyRecord());
      await a.takeLease("rec", "x", 5000);
      await a.takeLease("rec", "y", 5000);
      await a.openMcpSession("s1", "rec", 60, 10);
      await a.putMark("m", 60);
      expect(await a.keys()).toEqual(["rec"]);
    });

    test("MCP sessions: at most max open, any server sees one, idle ones go, closed ones make room", async () => {
      const { a, b } = pair(h);
      const opened = { opened: true, evicted: null };
      expect(await a.openMcpSession("s1", "alpha", 60, 3)).toEqual(opened);
      expect(await b.openMcpSession("s2", "beta", 60, 3)).toEqual(opened);
      expect(await a.openMcpSession("s3", "gamma", 0.3, 3)).toEqual(opened);
      // Full, and each one busy on its server: nothing opens.
      expect(await b.openMcpSession("s4", "delta", 60, 3, ["s1", "s2", "s3"])).toEqual({
        opened: false,
        evicted: null,
      });
      expect(await b.mcpSession("s1", 60)).toBe("alpha");
      expect(await a.mcpSession("s2", 60)).toBe("beta");
      expect(await a.mcpSession("nope", 60)).toBeNull();
      expect(await b.closeMcpSession("s1")).toBe(true);
      expect(await b.closeMcpSession("s1")).toBe(false);
      expect(await a.mcpSession("s1", 60)).toBeNull();
      expect(await b.openMcpSession("s4", "delta", 60, 3, ["s2", "s3"])).toEqual(opened);
      // s3 was idle 0.3 s at most: gone, and its place with it.
      await Bun.sleep(400);
      expect(await b.mcpSession("s3", 60)).toBeNull();
      expect(await a.openMcpSession("s5", "eps", 60, 3)).toEqual(opened);
      expect(await a.openMcpSession("s6", "eps", 60, 3, ["s2", "s4", "s5"])).toEqual({
        opened: false,
        evicted: null,
      });
    });

    test("MCP sessions: a full table closes the least recently used one nothing holds", async () => {
      const { a, b } = pair(h);
      for (const id of ["s1", "s2", "s3", "s4"]) {
        await a.openMcpSession(id, id, 60, 4);
        await Bun.sleep(5);
      }
      // s1 used since; s2 held by a long call on another server; s3 busy on the opening server; a
      // stream's beat keeps s4 open without making it used.
      await b.mcpSession("s1", 60);
      await b.mcpSession("s2", 60, { use: false, keep: 30 });
      await b.mcpSession("s4", 60, { use: false });
      expect(await a.openMcpSession("s5", "s5", 60, 4, ["s3"])).toEqual({ opened: true, evicted: "s4" });
      expect(await b.mcpSession("s4", 60)).toBeNull();
      expect(await b.openMcpSession("s6", "s6", 60, 4)).toEqual({ opened: true, evicted: "s3" });
      expect(await a.mcpSession("s3", 60)).toBeNull();
      expect(await a.mcpSession("s2", 60)).toBe("s2");
      // Held, and the others busy: nothing opens.
      expect(await a.openMcpSession("s7", "s7", 60, 4, ["s1", "s5", "s6"])).toEqual({
        opened: false,
        evicted: null,
      });
    });

    test("using a session restarts its idle time", async () => {
      const { a, b } = pair(h);
      await a.openMcpSession("s", "w", 0.4, 10);
      for (let i = 0; i < 4; i++) {
        await Bun.sleep(200);
        expect(await b.mcpSession("s", 0.4)).toBe("w");
      }
      await Bun.sleep(500);
      expect(await a.mcpSession("s", 0.4)).toBeNull();
    });

    test("a touch that writes what the session is: every server reads the new info, and its idle time still runs", async () => {
      const { a, b } = pair(h);
      await a.openMcpSession("s", "w", 0.4, 10);
      expect(await b.mcpSession("s", 0.4, { info: "w+level" })).toBe("w+level");
      expect(await a.mcpSession("s", 0.4)).toBe("w+level");
      // A plain touch keeps what was written.
      expect(await b.mcpSession("s", 0.4)).toBe("w+level");
      await Bun.sleep(500);
      // Gone once idle, and a write to a closed session opens nothing.
      expect(await a.mcpSession("s", 0.4, { info: "again" })).toBeNull();
      expect(await b.mcpSession("s", 0.4)).toBeNull();
    });

    test("a mark is seen by every server until it expires", async () => {
      const { a, b } = pair(h);
      expect(await b.hasMark("c")).toBe(false);
      await a.putMark("c", 0.3);
      expect(await b.hasMark("c")).toBe(true);
      await Bun.sleep(400);
      expect(await b.hasMark("c")).toBe(false);
    });

    test("Leases: a waiter waits its turn, a release on this server wakes it, a wait runs out in a 503", async () => {
      const { a, b } = pair(h);
      const la = new Leases(a, 5000);
      const lb = new Leases(b, 5000);
      const seen: string[] = [];
      const busy = () => new AppError("unavailable", "busy");
      // `fn` while holding the lease, given back as it ends.
      const under = async (l: Leases, opts: WaitOptions, fn: () => Promise<unknown>) => {
        const held = await leased(l === la ? a : b, l, "w", opts);
        try {
          await fn();
        } finally {
          await held.release();
        }
      };
      const first = under(la, { waitMs: 5000, busy }, async () => {
        seen.push("a start");
        await Bun.sleep(150);
        seen.push("a end");
      });
      await Bun.sleep(20);
      const second = under(lb, { waitMs: 5000, busy }, async () => {
        seen.push("b start");
        seen.push("b end");
      });
      const third = under(la, { waitMs: 50, busy }, async () => seen.push("never"));
      expect(await third.catch((e: Error) => e.message)).toBe("busy");
      await Promise.all([first, second]);
      expect(seen).toEqual(["a start", "a end", "b start", "b end"]);
      expect(lb.waits.count).toBe(1);
      // A waiter whose caller went away stops waiting.
      const holder = await leased(a, la, "w", { waitMs: 1000, busy });
      const stop = new AbortController();
      const waiting = leased(b, lb, "w", { waitMs: 5000, busy, signal: stop.signal }).catch(() => "stopped");
      await Bun.sleep(30);
      stop.abort();
      expect(await waiting).toBe("stopped");
      await holder.release();
      expect((await lb.tryTake("w")) !== null).toBe(true);
    });

    test("Leases: a held lease is renewed while its work runs, and a broken one says so", async () => {
      const { a, b } = pair(h);
      const la = new Leases(a, 300);
      const held = await leased(a, la, "w", { waitMs: 100, busy: () => new Error("busy") as never });
      await Bun.sleep(700);
      // Renewed every 100 ms: still held, well past 300 ms.
      expect(await b.takeLease("w", "other", 300)).toBeNull();
      expect(held.lost.aborted).toBe(false);
      await b.breakLease("w");
      await Bun.sleep(250);
      expect(held.lost.aborted).toBe(true);
      expect(held.lost.reason).toBeInstanceOf(LeaseLost);
      await held.release();
    });

    if (h.name === "redis") {
      test("a release or a break on one server is told to every server watching", async () => {
        const { a, b } = pair(h);
        const heard: string[] = [];
        const stop = b.watchLeases!((name) => heard.push(name));
        await Bun.sleep(100); // subscribed
        const token = (await a.takeLease("w", "x", 5000))!;
        await a.releaseLease("w", 999); // not the holder: nothing given back, nothing said
        await a.releaseLease("w", token);
        await a.takeLease("v", "y", 5000);
        await a.breakLease("v");
        for (let i = 0; i < 50 && heard.length < 2; i++) await Bun.sleep(20);
        expect(heard).toEqual(["w", "v"]);
        stop();
      });
    }

    if (h.name !== "sqlite-memory") {
      test("three processes × 30 increments under one lease (a plain get, a pause and a set) lose none", async () => {
        const { a, target, prefix: p } = pair(h);
        const go = join(tempDir(), "go");
        const procs = Array.from({ length: 3 }, () =>
          Bun.spawn([process.execPath, WORKER, target, p, "30"], {
            stdout: "pipe",
            stderr: "pipe",
            env: { ...process.env, STORE_WORKER_GO: go },
          }),
        );
        await Bun.sleep(300);
        await Bun.write(go, "go");
        const outs = await Promise.all(procs.map((pr) => new Response(pr.stdout).text()));
        for (const o of outs) expect(o.trim()).toStartWith("done");
        // They did meet: some increments waited for another process's.
        expect(outs.reduce((n, o) => n + Number(o.trim().split(" ")[1]), 0)).toBeGreaterThan(0);
        expect((await a.get("counter"))?.settings.n).toBe(90);
      }, 60_000);
    }
  });
}

// The lease queue's poll is bounded by a sorted set of deadlines: a waiter asking again reads the
// queue's head and the tickets whose deadline passed (at most 100 of those), never the whole queue.
// Counted in Redis commands on a private server (scripts' own calls count), not in time.
describe("the Redis lease queue's poll with 250 waiters", () => {
  let redis: PrivateRedis;
  let store: RedisStore;
  beforeAll(async () => {
    redis = await startRedis();
    store = new RedisStore({ url: redis.url, prefix: "q:" });
  });
  afterAll(async () => {
    await store.close();
    await redis.stop();
  });

  /** Redis commands per poll of one waiter, with `waiting` tickets in line behind a holder. */
  async function perPoll(name: string, waiting: number): Promise<number> {
    expect(await store.takeLease(name, "holder", 60_000)).toBeGreaterThan(0);
    for (let i = 0; i < waiting; i++) expect(await store.takeLease(name, `t${i}`, 60_000)).toBeNull();
    await redis.raw.send("CONFIG", ["RESETSTAT"]);
    const polls = 20;
    for (let i = 0; i < polls; i++)
      expect(await store.takeLease(name, `t${waiting >> 1}`, 60_000)).toBeNull();
    const calls = await redis.calls();
    let n = 0;
    for (const [cmd, c] of Object.entries(calls)) if (!/^(info|config|evalsha|eval|script)/.test(cmd)) n += c;
    return n / polls;
  }

  test("each poll does the same few commands with 250 waiters as with 10", async () => {
    const few = await perPoll("few", 10);
    const many = await perPoll("many", 250);
    expect(few).toBeLessThanOrEqual(8);
    expect(many).toBe(few);
    expect(await redis.raw.send("ZCARD", [`q:${LEASE_QUEUE}many`])).toBe(250);
  });

  test("250 waiters gone at once are cleared at most 100 per poll, and all of them in three", async () => {
    expect(await store.takeLease("gone", "holder", 60_000)).toBeGreaterThan(0);
    // Their places outlive the time it takes to queue all 250 (a loaded machine is slow), then lapse together.
    for (let i = 0; i < 250; i++) await store.takeLease("gone", `t${i}`, 1500);
    // One that stays keeps the queue's keys from expiring with the others.
    await store.takeLease("gone", "stays", 60_000);
    await Bun.sleep(1600);
    const left = () => redis.raw.send("ZCARD", [`q:${LEASE_DEADLINES}gone`]) as Promise<number>;
    const cleared: number[] = [];
    for (let poll = 0; poll < 3; poll++) {
      const before = await left();
      await redis.raw.send("CONFIG", ["RESETSTAT"]);
      expect(await store.takeLease("gone", "late", 60_000)).toBeNull();
      // Two removals per ticket cleared (its deadline and its place in line), nothing per ticket kept.
      expect((await redis.calls()).zrem ?? 0).toBeLessThanOrEqual(200);
      cleared.push(before - (await left()) + (poll === 0 ? 1 : 0));
    }
    expect(cleared).toEqual([100, 100, 50]);
    expect(await redis.raw.send("ZRANGE", [`q:${LEASE_QUEUE}gone`, "0", "-1"])).toEqual(["stays", "late"]);
  });
});
