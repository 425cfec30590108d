// A separate OS process that counts under a lease: `bun lease-worker.ts <sqlite-path | redis-url>
// <prefix> <count>` runs <count> increments of the record "counter", each a plain get, a pause and
// a set (no atomic update) inside the lease "counter", then prints `done` and exits. Only the lease
// keeps two processes from losing each other's increments.
import { emptyRecord } from "../../src/store/record.ts";
import { RedisStore } from "../../src/store/redis.ts";
import { SqliteStore } from "../../src/store/sqlite.ts";
import type { RecordStore } from "../../src/store/types.ts";
import { Leases } from "../../src/workspaces/lease.ts";
import { leased } from "../../src/workspaces/pipeline.ts";

const [target = "", prefix = "", count = "0"] = process.argv.slice(2);
const store: RecordStore = /^rediss?:/.test(target)
  ? new RedisStore({ url: target, prefix, ttl: 600 })
  : new SqliteStore({ path: target, ttl: 600, busyTimeoutMs: 30_000 });
const leases = new Leases(store, 5000);

const go = process.env.STORE_WORKER_GO;
if (go) while (!(await Bun.file(go).exists())) await Bun.sleep(5);

try {
  const wait = { waitMs: 60_000, busy: () => new Error("waited a minute for the lease") as never };
  for (let i = 0; i < Number(count); i++) {
    const held = await leased(store, leases, "counter", wait);
    try {
      const r = (await store.get("counter")) ?? emptyRecord();
      await Bun.sleep(1);
      await store.set("counter", { ...r, settings: { ...r.settings, n: Number(r.settings.n ?? 0) + 1 } });
    } finally {
      await held.release();
    }
  }
  console.log(`done ${leases.waits.count}`);
} catch (err) {
  console.log(`failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  await store.close();
}
