// A separate OS process that hammers records: `bun store-worker.ts <sqlite-path | redis-url>
// <prefix> <key,key,…> <count>` runs <count> concurrent updates of each key at once, each adding
// 1 to settings.n, then prints `done` (or the error) and exits.

import { emptyRecord } from "../../src/store/record.ts";
import { RedisStore } from "../../src/store/redis.ts";
import { SqliteStore } from "../../src/store/sqlite.ts";
import type { RecordStore } from "../../src/store/types.ts";

const [target = "", prefix = "", keys = "", count = "0"] = process.argv.slice(2);
const store: RecordStore = /^rediss?:/.test(target)
  ? new RedisStore({ url: target, prefix, ttl: 600 })
  : new SqliteStore({ path: target, ttl: 600, busyTimeoutMs: 30_000 });

// Start together: the parent writes the go file once every worker is up.
const go = process.env.STORE_WORKER_GO;
if (go) while (!(await Bun.file(go).exists())) await Bun.sleep(5);

try {
  await Promise.all(
    keys.split(",").flatMap((key) =>
      Array.from({ length: Number(count) }, () =>
        store.update(key, (r) => {
          const base = r ?? emptyRecord();
          return { ...base, settings: { ...base.settings, n: Number(base.settings.n ?? 0) + 1 } };
        }),
      ),
    ),
  );
  console.log("done");
} catch (err) {
  console.log(`failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  await store.close();
}
