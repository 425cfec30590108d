// A server's collector in a process of its own: `bun collector-worker.ts <data-dir> <inbox>
// <sqlite-path | redis-url> <stop>` files every recording the notes on <data-dir> owe, claiming
// each in the store, and prints `filed <workspace>` for each it filed. With <stop> `staged` or
// `linked` it stops dead (prints `stopped`, then hangs until killed) right after its first
// recording is staged, or linked under its name, to be SIGKILLed mid-move.
import { link } from "node:fs/promises";
import { FileStore } from "../../src/files/store.ts";
import { Collector } from "../../src/recordings/collector.ts";
import { RedisStore } from "../../src/store/redis.ts";
import { SqliteStore } from "../../src/store/sqlite.ts";
import type { RecordStore } from "../../src/store/types.ts";
import { Leases } from "../../src/workspaces/lease.ts";

const [dataDir = "", inbox = "", target = "", stop = "none"] = process.argv.slice(2);
const records: RecordStore = /^rediss?:/.test(target)
  ? new RedisStore({ url: target, prefix: process.env.STORE_PREFIX ?? "sf:" })
  : new SqliteStore({ path: target, busyTimeoutMs: 30_000 });
let links = 0;
const files = new FileStore(dataDir, {
  async link(source, dest) {
    await link(source, dest);
    links++;
    if ((stop === "staged" && links === 1) || (stop === "linked" && links === 2)) {
      console.log("stopped");
      await new Promise(() => undefined);
    }
  },
});
const collector = new Collector({
  store: files,
  inbox,
  liveIds: async () => new Set(),
  wait: 600,
  polling: true,
  pollMs: 100,
  tick: 0.2,
  claims: new Leases(records, Number(process.env.LEASE_MS ?? 2000)),
  events: { changed: (workspace) => console.log(`filed ${workspace}`) },
});
const go = process.env.STORE_WORKER_GO;
if (go) while (!(await Bun.file(go).exists())) await Bun.sleep(5);
await collector.start();
console.log("started");
process.on("SIGTERM", async () => {
  await collector.stop();
  await records.close();
  process.exit(0);
});
