// Record store throughput on a 2 KB record, each figure beside a raw reference measured in the
// same run: SQLite against a bare `INSERT OR REPLACE`/`SELECT` of the same JSON, Redis against a
// bare `SET`/`GET`. `bun bench/store.ts`; BENCH_REDIS_URL (or TEST_REDIS_URL) picks the Redis.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RedisClient } from "bun";
import { messageOf } from "../src/errors.ts";
import { at, emptyRecord, toJson, type WorkspaceRecord } from "../src/store/record.ts";
import { RedisStore } from "../src/store/redis.ts";
import { SqliteStore } from "../src/store/sqlite.ts";
import type { RecordStore } from "../src/store/types.ts";

export const TARGETS = { sqliteUpdates: 20_000, redisUpdates: 5_000 };
const IN_FLIGHT = 64;

export interface Row {
  store: "sqlite" | "redis";
  measure: string;
  opsPerSecond: number;
  reference: string;
  referenceOpsPerSecond: number;
  target?: number;
  error?: string;
}

/** A record whose JSON is 2 KB, as a workspace with some history and saved site data has. */
export function twoKbRecord(): WorkspaceRecord {
  let r: WorkspaceRecord = {
    ...emptyRecord(),
    session_id: "0123456789abcdef0123456789abcdef",
    opened_at: 1_790_900_000.5,
    settings: { browser: "chrome", width: 1280, height: 800, capture: true },
  };
  for (let i = 0; toJson(r).length < 1800; i++)
    r = at(r, [`https://app${i}.example.test/path/${i}`], 1_790_900_000 + i);
  const saved = (theme: string): WorkspaceRecord => ({
    ...r,
    site_data: { saved_at: 1_790_900_000, origins: { "https://app0.example.test": { local: { theme } } } },
  });
  return saved("x".repeat(2048 - toJson(saved("")).length));
}

const bump = (r: WorkspaceRecord | null): WorkspaceRecord => {
  const base = r ?? twoKbRecord();
  return { ...base, opened_at: base.opened_at + 1 };
};

async function rate(total: number, inFlight: number, op: (worker: number) => Promise<unknown> | unknown) {
  const per = Math.ceil(total / inFlight);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, w) => {
      for (let i = 0; i < per; i++) await op(w);
    }),
  );
  return (per * inFlight) / ((performance.now() - started) / 1000);
}

/** The three measures for one store, each with its reference. */
async function measure(
  store: RecordStore,
  n: number,
  ref: {
    write: (key: string) => Promise<unknown> | unknown;
    read: (key: string) => Promise<unknown> | unknown;
  },
): Promise<Array<[string, number, number]>> {
  const record = twoKbRecord();
  for (let w = 0; w < IN_FLIGHT; w++) {
    await store.set(`k${w}`, record);
    await ref.write(`k${w}`);
  }
  // Warm both paths before timing.
  await rate(Math.min(n, 1000), 1, () => store.update("k0", bump));
  await rate(Math.min(n, 1000), 1, () => ref.write("k0"));

  const one = await rate(n, 1, () => store.update("k0", bump));
  const oneRef = await rate(n, 1, () => ref.write("k0"));
  const many = await rate(n, IN_FLIGHT, (w) => store.update(`k${w}`, bump));
  const manyRef = await rate(n, IN_FLIGHT, (w) => ref.write(`k${w}`));
  const reads = await rate(n, 1, () => store.get("k0"));
  const readsRef = await rate(n, 1, () => ref.read("k0"));
  return [
    ["updates/s, one at a time", one, oneRef],
    [`updates/s, ${IN_FLIGHT} in flight (one key each)`, many, manyRef],
    ["reads/s", reads, readsRef],
  ];
}

async function sqliteRows(n: number): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "sf-bench-store-"));
  const store = new SqliteStore({ path: join(dir, "records.sqlite") });
  // The reference: the same pragmas, the bare statements, no transaction of our own.
  const db = new Database(join(dir, "reference.sqlite"));
  db.run("PRAGMA journal_mode = WAL");
  db.run("PRAGMA synchronous = NORMAL");
  db.run("CREATE TABLE t (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  const json = toJson(twoKbRecord());
  const insert = db.query("INSERT OR REPLACE INTO t (key, value) VALUES (?, ?)");
  const select = db.query("SELECT value FROM t WHERE key = ?");
  try {
    const figures = await measure(store, n, {
      write: async (key) => insert.run(key, json),
      read: async (key) => select.get(key),
    });
    return figures.map(([m, ops, refOps], i) => ({
      store: "sqlite",
      measure: m,
      opsPerSecond: ops,
      reference: i === 2 ? "raw SELECT" : "raw INSERT OR REPLACE",
      referenceOpsPerSecond: refOps,
      target: i === 0 ? TARGETS.sqliteUpdates : undefined,
    }));
  } finally {
    await store.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function redisRows(url: string, n: number): Promise<Row[]> {
  const prefix = `sf-bench-${process.pid}:`;
  const store = new RedisStore({ url, prefix, ttl: 600, timeoutMs: 2000 });
  const raw = new RedisClient(url);
  const json = toJson(twoKbRecord());
  try {
    if (!(await store.ping())) throw new Error(`no Redis answered at ${url}`);
    const figures = await measure(store, n, {
      write: (key) => raw.send("SET", [`${prefix}ref:${key}`, json, "EX", "600"]),
      read: (key) => raw.send("GET", [`${prefix}ref:${key}`]),
    });
    return figures.map(([m, ops, refOps], i) => ({
      store: "redis",
      measure: m,
      opsPerSecond: ops,
      reference: i === 2 ? "raw GET" : "raw SET",
      referenceOpsPerSecond: refOps,
      target: i === 0 ? TARGETS.redisUpdates : undefined,
    }));
  } catch (err) {
    return [
      {
        store: "redis",
        measure: "all",
        opsPerSecond: 0,
        reference: "",
        referenceOpsPerSecond: 0,
        error: messageOf(err),
      },
    ];
  } finally {
    for (const k of await store.keys().catch(() => [] as string[])) await store.delete(k).catch(() => {});
    await store.close();
    raw.close();
  }
}

function table(rows: Row[]): string {
  const fmt = (x: number) => Math.round(x).toLocaleString("en-US");
  const lines = [
    ["store", "measure", "ops/s", "reference", "ref ops/s", "ratio", "target"],
    ...rows.map((r) =>
      r.error
        ? [r.store, r.measure, "-", "-", "-", "-", r.error]
        : [
            r.store,
            r.measure,
            fmt(r.opsPerSecond),
            r.reference,
            fmt(r.referenceOpsPerSecond),
            (r.opsPerSecond / r.referenceOpsPerSecond).toFixed(2),
            r.target === undefined
              ? ""
              : `>= ${fmt(r.target)}/s ${r.opsPerSecond >= r.target ? "met" : "MISSED"}`,
          ],
    ),
  ];
  const widths = lines[0]!.map((_, c) => Math.max(...lines.map((l) => l[c]!.length)));
  return lines
    .map((l) =>
      l
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

export async function main(
  options: { redisUrl?: string; sqliteOps?: number; redisOps?: number } = {},
): Promise<Row[]> {
  const redisUrl =
    options.redisUrl ??
    process.env.BENCH_REDIS_URL ??
    process.env.TEST_REDIS_URL ??
    "redis://127.0.0.1:6379/0";
  console.log(`record store benchmark: a ${toJson(twoKbRecord()).length}-byte record`);
  const rows = [
    ...(await sqliteRows(options.sqliteOps ?? 20_000)),
    ...(await redisRows(redisUrl, options.redisOps ?? 5_000)),
  ];
  console.log(table(rows));
  return rows;
}

if (import.meta.main) await main();
