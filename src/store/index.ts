// Picks the record store from the configuration: Redis when store.url is set, else SQLite in the
// data directory, else SQLite in memory.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { RedisStore, redactedUrl } from "./redis.ts";
import { SqliteStore } from "./sqlite.ts";
import type { RecordStore } from "./types.ts";

export type { RecordStore, UpdateFn } from "./types.ts";

export interface StoreSettings {
  dataDir?: string | null;
  storeUrl?: string | null;
  /** Seconds a record lives after its last write. */
  ttl: number;
  /** Redis key prefix (default `sf:`). */
  prefix?: string;
}

export async function openStore(settings: StoreSettings): Promise<RecordStore> {
  const { dataDir, storeUrl, ttl, prefix } = settings;
  if (storeUrl) {
    let scheme = "";
    try {
      scheme = new URL(storeUrl).protocol;
    } catch {}
    if (scheme !== "redis:" && scheme !== "rediss:") {
      throw new Error(
        `store.url must be a redis:// or rediss:// URL (got ${scheme ? redactedUrl(storeUrl) : "something that is not a URL"}): set it to e.g. redis://host:6379/0, or leave it empty for the embedded SQLite store`,
      );
    }
    return new RedisStore({ url: storeUrl, ttl, prefix });
  }
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    return new SqliteStore({ path: join(dataDir, "records.sqlite"), ttl });
  }
  return new SqliteStore({ path: ":memory:", ttl });
}
