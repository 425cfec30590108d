// One suite for every record store: SQLite on a file, SQLite in memory, and the test Redis.
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RedisClient } from "bun";
import { AppError, StoreConflict } from "../../src/errors.ts";
import { openStore } from "../../src/store/index.ts";
import { at, emptyRecord, recordUrl, type WorkspaceRecord } from "../../src/store/record.ts";
import { RedisStore } from "../../src/store/redis.ts";
import { SqliteStore } from "../../src/store/sqlite.ts";
import type { RecordStore } from "../../src/store/types.ts";
import { testRedisUrl } from "../support/env.ts";
import { expiresIn } from "../support/store-ttl.ts";

const WORKER = join(import.meta.dir, "../support/store-worker.ts");
const BUN = process.execPath;

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "sf-store-test-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const withN = (r: WorkspaceRecord | null, n: number): WorkspaceRecord => {
  const base = r ?? emptyRecord();
  return { ...base, settings: { ...base.settings, n } };
};
const nOf = (r: WorkspaceRecord | null) => Number(r?.settings.n ?? 0);
const plus1 = (r: WorkspaceRecord | null) => withN(r, nOf(r) + 1);

const sample = (): WorkspaceRecord => ({
  ...at(emptyRecord(), ["https://app.example.test/login", "http://127.0.0.1:8080/home?tab=2"], 1_790_900_000),
  session_id: "0123abcd",
  opened_at: 1_790_899_999.5,
  settings: { browser: "chrome", width: 1280, height: 800 },
  site_data: { saved_at: 1_790_900_001 },
});

/** What each store needs for the shared suite: a fresh, empty store and two back doors. */
interface Harness {
  name: string;
  open(ttl: number): Promise<RecordStore>;
  /** Makes the key `seconds` older (it may expire). */
  age(store: RecordStore, key: string, seconds: number): Promise<void>;
  /** Stores raw text as the key's value, bypassing the record. */
  plant(store: RecordStore, key: string, raw: string): Promise<void>;
}

let clock = 1_800_000_000;
const sqliteHarness = (name: string, file: boolean): Harness => ({
  name,
  async open(ttl) {
    return new SqliteStore({
      path: file ? join(tempDir(), "records.sqlite") : ":memory:",
      ttl,
      now: () => clock,
    });
  },
  async age(_store, _key, seconds) {
    clock += seconds;
  },
  async plant(store, key, raw) {
    (store as SqliteStore).db
      .query("INSERT OR REPLACE INTO records (key, value, expires_at) VALUES (?, ?, ?)")
      .run(key, raw, clock + store.ttl);
  },
});

const raw = new RedisClient(testRedisUrl);
let prefixes = 0;
const redisPrefix = () => `sf-test-store-${process.pid}-${++prefixes}:`;
const redisHarness: Harness = {
  name: "redis",
  async open(ttl) {
    return new RedisStore({ url: testRedisUrl, ttl, prefix: redisPrefix() });
  },
  async age(store, key, seconds) {
    const full = (store as RedisStore).prefix + key;
    const left = Number(await raw.send("PTTL", [full]));
    await raw.send("PEXPIRE", [full, String(Math.round(left - seconds * 1000))]);
  },
  async plant(store, key, value) {
    await raw.send("SET", [(store as RedisStore).prefix + key, value, "EX", String(store.ttl)]);
  },
};

/** Seconds the key has left, on the SQLite stores' clock or as Redis says. */
const ttlLeft = (s: RecordStore, key: string) => expiresIn(s, key, { now: clock, redis: raw });

async function dropPrefix(prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = (await raw.send("SCAN", [
      cursor,
      "MATCH",
      `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`,
    ])) as [string, string[]];
    cursor = next;
    if (keys.length) await raw.send("DEL", keys);
  } while (cursor !== "0");
}

const opened: RecordStore[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) {
    if (s instanceof RedisStore) await dropPrefix(s.prefix);
    await s.close();
  }
});
afterAll(() => raw.close());

async function fresh(h: Harness, ttl = 600): Promise<RecordStore> {
  const s = await h.open(ttl);
  opened.push(s);
  return s;
}

/** Runs `bun store-worker.ts` in `count` processes at once; each prints "done" when its updates held. */
async function workers(count: number, args: string[]): Promise<string[]> {
  const go = join(tempDir(), "go");
  const procs = Array.from({ length: count }, () =>
    Bun.spawn([BUN, WORKER, ...args], {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, STORE_WORKER_GO: go },
    }),
  );
  await Bun.sleep(300);
  await Bun.write(go, "go");
  return Promise.all(
    procs.map(async (p) => {
      const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
      await p.exited;
      return `${out.trim()}${err.trim() ? ` (stderr: ${err.trim()})` : ""}`;
    }),
  );
}

for (const h of [sqliteHarness("sqlite-file", true), sqliteHarness("sqlite-memory", false), redisHarness]) {
  describe(`the ${h.name} record store`, () => {
    test("get, set, delete and keys round-trip a record, history included; a write gives it the TTL", async () => {
      const s = await fresh(h, 600);
      expect(s.ttl).toBe(600);
      expect(await s.ping()).toBe(true);
      expect(await s.get("alpha")).toBeNull();
      expect(await ttlLeft(s, "alpha")).toBeNull();
      await s.set("alpha", sample());
      await s.set("beta", emptyRecord());
      const back = await s.get("alpha");
      expect(back).toEqual(sample());
      expect(back!.history).toHaveLength(2);
      expect(recordUrl(back!)).toBe("http://127.0.0.1:8080/home?tab=2");
      expect(await s.keys()).toEqual(["alpha", "beta"]);
      const left = await ttlLeft(s, "alpha");
      expect(left).toBeGreaterThan(598);
      expect(left).toBeLessThanOrEqual(600);
      expect(await s.delete("alpha")).toBe(true);
      expect(await s.delete("alpha")).toBe(false);
      expect(await s.get("alpha")).toBeNull();
      expect(await ttlLeft(s, "alpha")).toBeNull();
      expect(await s.keys()).toEqual(["beta"]);
    });

    test("200 concurrent updates of one key lose none", async () => {
      const s = await fresh(h);
      const results = await Promise.all(Array.from({ length: 200 }, () => s.update("busy", plus1)));
      expect(nOf(await s.get("busy"))).toBe(200);
      // Each update resolved to the record it stored: every count from 1 to 200 once.
      expect(results.map(nOf).sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    });

    test("concurrent updates of 40 keys, 10 each, all land on their own keys", async () => {
      const s = await fresh(h);
      const keys = Array.from({ length: 40 }, (_, i) => `w${i}`);
      await Promise.all(keys.flatMap((k) => Array.from({ length: 10 }, () => s.update(k, plus1))));
      const counts = await Promise.all(keys.map(async (k) => nOf(await s.get(k))));
      expect(counts).toEqual(keys.map(() => 10));
      expect((await s.keys()).sort()).toEqual([...keys].sort());
    });

    test("fn returning null writes nothing", async () => {
      const s = await fresh(h, 100);
      expect(await s.update("none", () => null)).toBeNull();
      expect(await s.get("none")).toBeNull();
      expect(await s.keys()).toEqual([]);

      await s.set("kept", withN(null, 7));
      await h.age(s, "kept", 30);
      const out = await s.update("kept", () => null);
      expect(nOf(out)).toBe(7);
      expect(nOf(await s.get("kept"))).toBe(7);
      // No write, so the TTL did not slide.
      expect(await ttlLeft(s, "kept")).toBeLessThanOrEqual(70);
    });

    test("fn gets null for a missing record and the stored record otherwise", async () => {
      const s = await fresh(h);
      const seen: Array<WorkspaceRecord | null> = [];
      await s.update("k", (r) => {
        seen.push(r);
        return withN(r, 1);
      });
      await s.set("k", withN(sample(), 5));
      await s.update("k", (r) => {
        seen.push(r);
        return r;
      });
      expect(seen).toEqual([null, withN(sample(), 5)]);
    });

    test("an error thrown by fn reaches the caller and writes nothing", async () => {
      const s = await fresh(h);
      await s.set("k", withN(null, 3));
      const boom = new Error("fn failed");
      await expect(
        s.update("k", () => {
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(nOf(await s.get("k"))).toBe(3);
      // The store still works afterwards.
      expect(nOf(await s.update("k", plus1))).toBe(4);
    });

    test("every write slides the TTL, even one that changes nothing", async () => {
      const s = await fresh(h, 100);
      await s.set("k", sample());
      await h.age(s, "k", 60);
      expect(await ttlLeft(s, "k")).toBeLessThanOrEqual(40);
      await s.update("k", (r) => r);
      expect(await ttlLeft(s, "k")).toBeGreaterThan(98);
      await h.age(s, "k", 60);
      await s.set("k", sample());
      expect(await ttlLeft(s, "k")).toBeGreaterThan(98);
      // 120 s after the first write, with a 100 s TTL: alive because the writes slid it.
      await h.age(s, "k", 60);
      expect(await s.get("k")).toEqual(sample());
    });

    test("an expired record reads as absent everywhere", async () => {
      const s = await fresh(h, 100);
      await s.set("gone", sample());
      await s.set("live", sample());
      await h.age(s, "gone", 101);
      if (h.name !== "redis") await s.set("live", sample()); // the SQLite clock aged both
      expect(await s.get("gone")).toBeNull();
      expect(await ttlLeft(s, "gone")).toBeNull();
      expect(await s.keys()).toEqual(["live"]);
      expect(await s.delete("gone")).toBe(false);
      const seen: Array<WorkspaceRecord | null> = [];
      await s.update("gone", (r) => {
        seen.push(r);
        return null;
      });
      expect(seen).toEqual([null]);
    });

    test("a malformed stored value reads defensively", async () => {
      const s = await fresh(h);
      await h.plant(s, "junk", "not json {");
      await h.plant(s, "list", "[1,2,3]");
      await h.plant(
        s,
        "typed",
        JSON.stringify({ session_id: 9, history: "x", settings: [1], site_data: "y" }),
      );
      expect(await s.get("junk")).toEqual(emptyRecord());
      expect(await s.get("list")).toEqual(emptyRecord());
      expect(await s.get("typed")).toEqual(emptyRecord());
      const out = await s.update("junk", (r) => at(r!, ["https://app.example.test/"], 5));
      expect(recordUrl(out!)).toBe("https://app.example.test/");
      expect(await s.get("junk")).toEqual(out);
    });

    test("admin sign-ins live beside the records, never among their keys, and expire", async () => {
      const s = await fresh(h, 600);
      await s.set("ws", emptyRecord());
      expect(await s.hasSignIn("d1")).toBe(false);
      await s.putSignIn("d1", 30);
      await s.putSignIn("d2", 30);
      expect(await s.hasSignIn("d1")).toBe(true);
      expect(await s.keys()).toEqual(["ws"]);
      await s.dropSignIn("d1");
      expect(await s.hasSignIn("d1")).toBe(false);
      expect(await s.hasSignIn("d2")).toBe(true);
      if (s instanceof RedisStore) {
        const full = `${s.prefix}!admin-session:d2`;
        expect(Number(await raw.send("TTL", [full]))).toBeGreaterThan(25);
        await raw.send("PEXPIRE", [full, "1"]);
        await Bun.sleep(20);
      } else {
        clock += 31;
      }
      expect(await s.hasSignIn("d2")).toBe(false);
      expect(await s.get("ws")).not.toBeNull();
    });
  });
}

describe("the sqlite record store on a file", () => {
  test("three processes × 300 concurrent updates of one record lose none", async () => {
    const path = join(tempDir(), "records.sqlite");
    const outs = await workers(3, [path, "", "shared", "300"]);
    expect(outs).toEqual(["done", "done", "done"]);
    const s = new SqliteStore({ path });
    expect(nOf(await s.get("shared"))).toBe(900);
    await s.close();
  }, 60_000);

  test("another process cannot write between update's read and its write", async () => {
    const dir = tempDir();
    const path = join(dir, "records.sqlite");
    const s = new SqliteStore({ path, ttl: 600 });
    await s.set("k", withN(null, 1));
    const script = join(dir, "intruder.ts");
    await Bun.write(
      script,
      `import { SqliteStore } from ${JSON.stringify(join(import.meta.dir, "../../src/store/sqlite.ts"))};
       const s = new SqliteStore({ path: ${JSON.stringify(path)}, busyTimeoutMs: 200 });
       try { await s.set("k", { session_id: "", opened_at: 0, settings: { n: 41 }, history: [], site_data: {}, reopened: {} }); console.log("wrote"); }
       catch (e) { console.log("locked out: " + e.message); }`,
    );
    let intruder = "";
    const out = await s.update("k", (r) => {
      if (!intruder) intruder = Bun.spawnSync([BUN, script]).stdout.toString().trim();
      return plus1(r);
    });
    expect(intruder).toStartWith("locked out: the record store at");
    expect(intruder).toContain("database is locked");
    expect(nOf(out)).toBe(2);
    expect(nOf(await s.get("k"))).toBe(2);
    await s.close();
  }, 20_000);

  test("records outlive the process that wrote them, and expired rows are purged", async () => {
    const path = join(tempDir(), "records.sqlite");
    let now = 1000;
    const a = new SqliteStore({ path, ttl: 60, now: () => now });
    await a.set("k", sample());
    await a.set("old", sample());
    await a.close();
    const b = new SqliteStore({ path, ttl: 60, now: () => now });
    expect(await b.get("k")).toEqual(sample());
    expect(b.db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    now += 61;
    expect(await b.get("k")).toBeNull();
    const rows = () => b.db.query("SELECT key FROM records ORDER BY key").all();
    expect(rows()).toEqual([{ key: "old" }]);
    await b.keys();
    expect(rows()).toEqual([]);
    await b.close();
  });

  test("a file that cannot be opened is the unavailable error", () => {
    expect(() => new SqliteStore({ path: "/proc/no-such-dir/records.sqlite" })).toThrow(
      expect.objectContaining({ kind: "unavailable", message: expect.stringContaining("did not answer") }),
    );
  });
});

describe("the redis record store", () => {
  test("a write between update's read and its write makes fn run again on the new record", async () => {
    const s = (await fresh(redisHarness)) as RedisStore;
    await s.set("k", withN(null, 1));
    const seen: number[] = [];
    const out = await s.update("k", (r) => {
      seen.push(nOf(r));
      if (seen.length === 1) {
        // A synchronous write from outside, after WATCH and GET, before EXEC.
        const cli = Bun.spawnSync([
          "redis-cli",
          "-u",
          testRedisUrl,
          "SET",
          `${s.prefix}k`,
          JSON.stringify(withN(null, 41)),
        ]);
        expect(cli.stdout.toString().trim()).toBe("OK");
      }
      return plus1(r);
    });
    expect(seen).toEqual([1, 41]);
    expect(nOf(out)).toBe(42);
    expect(nOf(await s.get("k"))).toBe(42);
    expect(await ttlLeft(s, "k")).toBeGreaterThan(598);
  });

  test("a record that keeps changing ends in StoreConflict after 10 tries", async () => {
    const s = (await fresh(redisHarness)) as RedisStore;
    let runs = 0;
    const attempt = s.update("k", (r) => {
      runs++;
      Bun.spawnSync([
        "redis-cli",
        "-u",
        testRedisUrl,
        "SET",
        `${s.prefix}k`,
        JSON.stringify(withN(null, runs)),
      ]);
      return plus1(r);
    });
    await expect(attempt).rejects.toBeInstanceOf(StoreConflict);
    await expect(attempt).rejects.toThrow(
      "the record for workspace k kept changing under this write: retry the call",
    );
    expect(runs).toBe(10);
    // The conflicting writes stand; none of ours went in.
    expect(nOf(await s.get("k"))).toBe(10);
  }, 20_000);

  test("keys() lists only this prefix, glob characters included", async () => {
    const prefix = `sf-test-store-${process.pid}-[ab]:`;
    const s = new RedisStore({ url: testRedisUrl, prefix, ttl: 60 });
    opened.push(s);
    const lookalike = `sf-test-store-${process.pid}-a:x`;
    await raw.send("SET", [lookalike, "{}", "EX", "60"]);
    try {
      await s.set("one", emptyRecord());
      await s.set("two", emptyRecord());
      expect(await s.keys()).toEqual(["one", "two"]);
      expect(await raw.send("EXISTS", [`${prefix}one`])).toBeTruthy();
    } finally {
      await raw.send("DEL", [lookalike]);
    }
  });

  test("a record expires in real time when nothing writes it", async () => {
    const s = await fresh(redisHarness, 1);
    await s.set("k", sample());
    await Bun.sleep(600);
    await s.update("k", (r) => r);
    await Bun.sleep(600);
    expect(await s.get("k")).toEqual(sample()); // 1.2 s after the set: the update slid it
    await Bun.sleep(1100);
    expect(await s.get("k")).toBeNull();
  });

  test("two processes on one Redis lose none", async () => {
    const prefix = redisPrefix();
    try {
      // Several keys at once: a transaction on one key must not lift the WATCH of another.
      const outs = await workers(2, [testRedisUrl, prefix, "a,b,c", "150"]);
      expect(outs).toEqual(["done", "done"]);
      for (const k of ["a", "b", "c"]) {
        expect(nOf(JSON.parse(String(await raw.send("GET", [`${prefix}${k}`]))))).toBe(300);
      }
    } finally {
      await dropPrefix(prefix);
    }
  }, 60_000);

  test("a Redis that is down is the unavailable error, without the credentials", async () => {
    const port = await freePort();
    const s = new RedisStore({ url: `redis://flow:hunter2@127.0.0.1:${port}/5`, prefix: "sf-test-down:" });
    const started = performance.now();
    const calls: Array<() => Promise<unknown>> = [
      () => s.get("k"),
      () => s.set("k", emptyRecord()),
      () => s.update("k", plus1),
      () => s.delete("k"),
      () => s.keys(),
    ];
    for (const call of calls) {
      const err = await call().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).kind).toBe("unavailable");
      expect((err as AppError).message).toStartWith(
        `the record store at redis://127.0.0.1:${port}/5 did not answer: `,
      );
      expect((err as AppError).message).not.toContain("hunter2");
    }
    expect(await s.ping()).toBe(false);
    expect(performance.now() - started).toBeLessThan(8000);
    await s.close();
  }, 15_000);

  test("a Redis that stops answering is the unavailable error, and one that comes back is used again", async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}/0`;
    let server = await redisServer(port);
    const s = new RedisStore({ url, prefix: "sf-test-restart:", timeoutMs: 500 });
    try {
      await s.set("k", withN(null, 1));
      expect(nOf(await s.update("k", plus1))).toBe(2);

      server.kill("SIGSTOP");
      await expect(s.get("k")).rejects.toThrow(
        `the record store at ${url} did not answer: no reply within 500 ms`,
      );
      await expect(s.update("k", plus1)).rejects.toThrow(`the record store at ${url} did not answer`);
      server.kill("SIGCONT");
      server.kill();
      await server.exited;
      await expect(s.get("k")).rejects.toThrow(`the record store at ${url} did not answer`);
      expect(await s.ping()).toBe(false);

      server = await redisServer(port);
      expect(await s.ping()).toBe(true);
      await s.set("k", withN(null, 10));
      const results = await Promise.all(Array.from({ length: 20 }, () => s.update("k", plus1)));
      expect(results.map(nOf).sort((a, b) => a - b)[19]).toBe(30);
      expect(nOf(await s.get("k"))).toBe(30);
    } finally {
      await s.close();
      server.kill("SIGCONT");
      server.kill();
      await server.exited;
    }
  }, 30_000);
});

describe("openStore", () => {
  test("store.url picks Redis, with the prefix and ttl given", async () => {
    const prefix = redisPrefix();
    const s = await openStore({ storeUrl: testRedisUrl, ttl: 120, prefix, key: "k".repeat(32) });
    opened.push(s);
    expect(s.kind).toBe("redis");
    expect(s.ttl).toBe(120);
    await s.set("k", emptyRecord());
    expect(await raw.send("EXISTS", [`${prefix}k`])).toBeTruthy();
  });

  test("a data dir picks SQLite at <dataDir>/records.sqlite, making the dir", async () => {
    const dataDir = join(tempDir(), "nested", "data");
    const s = await openStore({ dataDir, ttl: 300 });
    opened.push(s);
    expect(s.kind).toBe("sqlite");
    expect(s.ttl).toBe(300);
    await s.set("k", sample());
    expect((s as SqliteStore).path).toBe(join(dataDir, "records.sqlite"));
    expect(await Bun.file(join(dataDir, "records.sqlite")).exists()).toBe(true);
  });

  test("neither picks SQLite in memory", async () => {
    const s = await openStore({ ttl: 300 });
    opened.push(s);
    expect(s.kind).toBe("sqlite");
    expect((s as SqliteStore).path).toBe(":memory:");
  });

  test("any other store.url is a configuration error naming store.url, without credentials", async () => {
    for (const storeUrl of [
      "http://user:pw@cache.example.test:6379/0",
      "memcached://127.0.0.1",
      "not a url",
    ]) {
      const err = await openStore({ storeUrl, ttl: 60 }).then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(err).toBeInstanceOf(Error);
      expect(err!.message).toContain("store.url");
      expect(err!.message).toContain("redis://");
      expect(err!.message).not.toContain("pw@");
    }
  });
});

async function freePort(): Promise<number> {
  const l = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = l.port;
  l.stop(true);
  return port;
}

async function redisServer(port: number) {
  const proc = Bun.spawn(
    ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdout: "ignore", stderr: "ignore" },
  );
  const c = new RedisClient(`redis://127.0.0.1:${port}`, { connectionTimeout: 200, maxRetries: 0 });
  try {
    for (let i = 0; i < 100; i++) {
      try {
        if ((await c.send("PING", [])) === "PONG") return proc;
      } catch {
        await Bun.sleep(50);
        await c.connect().catch(() => {});
      }
    }
  } finally {
    c.close();
  }
  throw new Error(`redis-server did not start on port ${port}`);
}
