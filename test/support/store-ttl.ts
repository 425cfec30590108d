// How long a record has left, read beside the store (its SQLite row, Redis's PTTL): the server
// never asks, so the store port has no such read.
import type { RedisClient } from "bun";
import { RedisStore } from "../../src/store/redis.ts";
import { SqliteStore } from "../../src/store/sqlite.ts";
import type { RecordStore } from "../../src/store/types.ts";

export interface TtlRead {
  /** Epoch seconds, for a SQLite store on a test's clock (default: now). */
  now?: number;
  /** A client on the Redis a Redis store writes to. */
  redis?: RedisClient;
}

/** Seconds until `key` expires (Infinity: it never does), or null when it is not there. */
export async function expiresIn(store: RecordStore, key: string, read: TtlRead = {}): Promise<number | null> {
  if (store instanceof SqliteStore) {
    const row = store.db
      .query<{ expires_at: number }, [string]>("SELECT expires_at FROM records WHERE key = ?")
      .get(key);
    const left = row ? row.expires_at - (read.now ?? Date.now() / 1000) : 0;
    return left > 0 ? left : null;
  }
  if (store instanceof RedisStore) {
    if (!read.redis) throw new Error("expiresIn: a Redis store's TTL needs a client on its Redis");
    const ms = Number(await read.redis.send("PTTL", [store.prefix + key]));
    if (ms === -2) return null;
    // -1: someone stored the key without a TTL; it never expires.
    return ms === -1 ? Number.POSITIVE_INFINITY : ms / 1000;
  }
  throw new Error(`expiresIn: no TTL read for a ${store.kind} store`);
}
