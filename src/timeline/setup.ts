// Picks where timelines are kept: the data dir when there is one; otherwise beside the records
// (Redis), or in this process's memory beside the embedded store's.
import type { Config } from "../config/schema.ts";
import { dataDirOf } from "../files/layout.ts";
import type { RecordStore } from "../store/types.ts";
import { DiskLog } from "./disk-log.ts";
import { MemoryLog, type TimelineLog } from "./log.ts";
import { RedisLog } from "./redis-log.ts";

export function openTimelineLog(
  config: Config,
  store: RecordStore,
  warn?: (message: string) => void,
): TimelineLog {
  const keep = config.timeline.keep;
  const dir = dataDirOf(config);
  if (dir) return new DiskLog(dir, keep, warn);
  const prefix = (store as { prefix?: unknown }).prefix;
  if (store.kind === "redis" && config.store.url) {
    return new RedisLog(config.store.url, typeof prefix === "string" ? prefix : "sf:", keep, store.ttl);
  }
  return new MemoryLog(keep);
}
