// The Redis store's update: read (or this server's last sight of the value), fn, then one
// compare-and-set script. Run on a private redis-server so its command counters and script cache
// are the test's own.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { StoreConflict } from "../../src/errors.ts";
import { emptyRecord, SERVER_RECORD, type WorkspaceRecord } from "../../src/store/record.ts";
import { RedisStore, type RedisStoreOptions } from "../../src/store/redis.ts";
import { CAS_SCRIPT } from "../../src/store/redis-update.ts";
import { type PrivateRedis, startRedis } from "../support/redis-server.ts";
import { expiresIn } from "../support/store-ttl.ts";

const withN = (r: WorkspaceRecord | null, n: number): WorkspaceRecord => {
  const base = r ?? emptyRecord();
  return { ...base, settings: { ...base.settings, n } };
};
const nOf = (r: WorkspaceRecord | null) => Number(r?.settings.n ?? 0);
const plus1 = (r: WorkspaceRecord | null) => withN(r, nOf(r) + 1);
const CAS_SHA = new Bun.CryptoHasher("sha1").update(CAS_SCRIPT).digest("hex");

let redis: PrivateRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());

const stores: RedisStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  await redis.raw.send("FLUSHDB", []);
});

/** Another store on the same keys: a second server of the group. */
function open(options: Partial<RedisStoreOptions> = {}): RedisStore {
  const s = new RedisStore({ url: redis.url, prefix: "cas:", ttl: 600, ...options });
  stores.push(s);
  return s;
}

/** Seconds the key has left, as Redis says. */
const ttlLeft = (s: RedisStore, key: string) => expiresIn(s, key, { redis: redis.raw });

/** A synchronous write from outside, for use inside fn (which cannot await). */
function cli(args: string[], stdin?: Uint8Array): string {
  const p = Bun.spawnSync(["redis-cli", "-p", String(redis.port), ...args], { stdin });
  return p.stdout.toString().trim();
}

/** The commands that matter here, counted from a reset. */
async function counted(run: () => Promise<unknown>): Promise<Record<string, number>> {
  await redis.raw.send("CONFIG", ["RESETSTAT"]);
  await run();
  const all = await redis.calls();
  const out: Record<string, number> = {};
  for (const name of ["get", "set", "evalsha", "eval", "watch", "multi", "exec", "script|load"])
    if (all[name]) out[name] = all[name];
  return out;
}

describe("the redis store's compare-and-set update", () => {
  test("an update of a record this server wrote last is one EVALSHA: no read, WATCH or MULTI of its own", async () => {
    const s = open();
    await s.set("k", withN(null, 0));
    await s.update("k", (r) => r); // a fresh Redis has no script yet: EVAL loads it (below)
    const calls = await counted(async () => {
      for (let i = 0; i < 20; i++) await s.update("k", plus1);
    });
    // The script's own GET and SET count as commands too: one of each per update.
    expect(calls).toEqual({ evalsha: 20, get: 20, set: 20 });
    expect(nOf(await s.get("k"))).toBe(20);

    // A server that did not write last reads first: one GET more per update, still no transaction.
    const cold = open({ cacheChars: 0 });
    expect(
      await counted(async () => {
        for (let i = 0; i < 20; i++) await cold.update("k", plus1);
      }),
    ).toEqual({ evalsha: 20, get: 40, set: 20 });
    expect(nOf(await s.get("k"))).toBe(40);

    // A record larger than an eighth of the budget is not kept either.
    const small = open({ cacheChars: 8 * 1024 });
    await small.set("big", { ...emptyRecord(), settings: { n: 0, pad: "x".repeat(2000) } });
    expect(
      await counted(async () => {
        for (let i = 0; i < 5; i++) await small.update("big", plus1);
      }),
    ).toEqual({ evalsha: 5, get: 10, set: 5 });
  });

  test("another server's write since this one's last: fn runs again on the record as stored", async () => {
    const a = open();
    const b = open();
    await a.update("k", plus1);
    await b.update("k", plus1);
    const seen: number[] = [];
    const out = await a.update("k", (r) => {
      seen.push(nOf(r));
      return plus1(r);
    });
    expect(seen).toEqual([1, 2]);
    expect(nOf(out)).toBe(3);
    expect(nOf(await b.get("k"))).toBe(3);
  });

  test("a write between the read and the compare-and-set: fn runs again on the new record", async () => {
    const s = open({ cacheChars: 0 });
    await s.set("k", withN(null, 1));
    const seen: number[] = [];
    const calls = await counted(async () => {
      const out = await s.update("k", (r) => {
        seen.push(nOf(r));
        if (seen.length === 1) expect(cli(["SET", "cas:k", JSON.stringify(withN(null, 41))])).toBe("OK");
        return plus1(r);
      });
      expect(nOf(out)).toBe(42);
    });
    expect(seen).toEqual([1, 41]);
    // The failed compare-and-set brought the new value back: the retry needed no read.
    expect(calls).toEqual({ get: 3, evalsha: 2, set: 2 });
    expect(nOf(await s.get("k"))).toBe(42);
    expect(await ttlLeft(s, "k")).toBeGreaterThan(598);
  });

  test("a key deleted between the read and the compare-and-set: fn runs again on null", async () => {
    const s = open();
    await s.set("k", withN(null, 5));
    const seen: Array<number | null> = [];
    const out = await s.update("k", (r) => {
      seen.push(r ? nOf(r) : null);
      if (seen.length === 1) expect(cli(["DEL", "cas:k"])).toBe("1");
      return plus1(r);
    });
    expect(seen).toEqual([5, null]);
    expect(nOf(out)).toBe(1);
    expect(nOf(await s.get("k"))).toBe(1);
    expect(await ttlLeft(s, "k")).toBeGreaterThan(598);

    // The same when another server deleted it since this one's last write.
    const other = open();
    expect(await other.delete("k")).toBe(true);
    seen.length = 0;
    await s.update("k", (r) => {
      seen.push(r ? nOf(r) : null);
      return plus1(r);
    });
    expect(seen).toEqual([1, null]);
    expect(nOf(await other.get("k"))).toBe(1);
  });

  test("a key created between the read and the compare-and-set: fn runs again on it", async () => {
    const s = open();
    const seen: Array<number | null> = [];
    const out = await s.update("fresh", (r) => {
      seen.push(r ? nOf(r) : null);
      if (seen.length === 1) expect(cli(["SET", "cas:fresh", JSON.stringify(withN(null, 41))])).toBe("OK");
      return plus1(r);
    });
    expect(seen).toEqual([null, 41]);
    expect(nOf(out)).toBe(42);
  });

  test("fn's null on a stale value is decided again on the record as stored, and writes nothing", async () => {
    const a = open();
    const b = open();
    await a.update("k", plus1);
    await b.set("k", withN(null, 5));
    const seen: number[] = [];
    const out = await a.update("k", (r) => {
      seen.push(nOf(r));
      return nOf(r) >= 5 ? plus1(r) : null;
    });
    expect(seen).toEqual([1, 5]);
    expect(nOf(out)).toBe(6);

    await b.set("k", withN(null, 9));
    await redis.raw.send("EXPIRE", ["cas:k", "100"]);
    let left: WorkspaceRecord | null = null;
    const calls = await counted(async () => {
      left = await a.update("k", () => null);
    });
    // The record as stored, not the one this server last wrote; no write, so no TTL slide.
    expect(nOf(left)).toBe(9);
    expect(calls).toEqual({ get: 1 });
    expect(await ttlLeft(a, "k")).toBeLessThanOrEqual(100);
  });

  test("fn's throw on a stale value is decided again on the record as stored", async () => {
    const a = open();
    const b = open();
    expect(await a.get("k")).toBeNull();
    await b.set("k", withN(null, 3));
    const needsRecord = (r: WorkspaceRecord | null) => {
      if (!r) throw new Error("no record");
      return plus1(r);
    };
    expect(nOf(await a.update("k", needsRecord))).toBe(4);
    await b.delete("k");
    // On the record as stored (none), the throw stands and reaches the caller.
    await expect(a.update("k", needsRecord)).rejects.toThrow("no record");
    expect(await b.get("k")).toBeNull();
  });

  test("after SCRIPT FLUSH the update falls back to EVAL, which loads the script again", async () => {
    const s = open();
    await s.update("k", plus1);
    expect(await redis.raw.send("SCRIPT", ["EXISTS", CAS_SHA])).toEqual([1]);
    await redis.raw.send("SCRIPT", ["FLUSH"]);
    expect(await redis.raw.send("SCRIPT", ["EXISTS", CAS_SHA])).toEqual([0]);
    const calls = await counted(async () => expect(nOf(await s.update("k", plus1))).toBe(2));
    // The EVALSHA that found no script, then the EVAL: one write.
    expect(calls).toEqual({ evalsha: 1, eval: 1, get: 1, set: 1 });
    expect(await redis.raw.send("SCRIPT", ["EXISTS", CAS_SHA])).toEqual([1]);
    // Cached again: the next update is the one EVALSHA.
    expect(await counted(() => s.update("k", plus1))).toEqual({ evalsha: 1, get: 1, set: 1 });
    expect(nOf(await s.get("k"))).toBe(3);
  });

  test("a stored value that is not UTF-8 text is still updated (its bytes' digest is compared)", async () => {
    const s = open();
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('{"settings":{"n":4},"x":"'),
      0xff,
      0x22,
      0x7d,
    ]);
    expect(cli(["-x", "SET", "cas:bin"], bytes)).toBe("OK");
    expect(nOf(await s.get("bin"))).toBe(4); // and kept as a hint that cannot match
    expect(nOf(await s.update("bin", plus1))).toBe(5);
    expect(JSON.parse(String(await redis.raw.send("GET", ["cas:bin"]))).settings.n).toBe(5);
    expect(nOf(await s.update("bin", plus1))).toBe(6);
  });

  test("a record the Python build wrote is updated on the first compare-and-set", async () => {
    // json.dumps spacing: this build's JSON.stringify of the same record would not match it.
    const python =
      '{"session_id": "5f0c2a", "opened_at": 1790900000.25, "settings": {"browser": "chrome", "n": 7}, ' +
      '"history": [{"origin": "https://app.example.test", "url": "https://app.example.test/caf\\u00e9", "at": 1790900100.5}], ' +
      '"site_data": {}, "reopened": {}, "url": "https://old.example.test/"}';
    await redis.raw.send("SET", ["cas:py", python, "EX", "600"]);
    const s = open();
    let out: WorkspaceRecord | null = null;
    const calls = await counted(async () => {
      out = await s.update("py", plus1);
    });
    expect(calls).toEqual({ get: 2, evalsha: 1, set: 1 });
    expect(nOf(out)).toBe(8);
    const back = await s.get("py");
    expect(back?.session_id).toBe("5f0c2a");
    expect(back?.history[0]?.url).toBe("https://app.example.test/café");
  });

  test("two servers updating one key at once lose none", async () => {
    const a = open();
    const b = open();
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).update("busy", plus1)),
    );
    expect(nOf(await a.get("busy"))).toBe(200);
    expect(results.map(nOf).sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  test("a record that keeps changing still ends in StoreConflict after 10 tries", async () => {
    const s = open();
    let runs = 0;
    const attempt = s.update("k", (r) => {
      runs++;
      cli(["SET", "cas:k", JSON.stringify(withN(null, 100 + runs))]);
      return plus1(r);
    });
    await expect(attempt).rejects.toBeInstanceOf(StoreConflict);
    expect(runs).toBe(10);
    expect(nOf(await s.get("k"))).toBe(110);
  }, 20_000);
});

test("the server's own record (an admin's secrets) is written without the records' TTL; a workspace's keeps it", async () => {
  const s = open();
  await s.update(SERVER_RECORD, plus1);
  await s.update("ws", plus1);
  expect(await ttlLeft(s, SERVER_RECORD)).toBeGreaterThan(10 * 365 * 86400);
  expect(await ttlLeft(s, "ws")).toBeLessThanOrEqual(600);
  await s.set(SERVER_RECORD, withN(null, 5));
  expect(await ttlLeft(s, SERVER_RECORD)).toBeGreaterThan(10 * 365 * 86400);
});
