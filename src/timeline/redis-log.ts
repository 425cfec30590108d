// Timelines in Redis, for a server with a Redis store and no data dir: a list per workspace beside
// its record, no screens.
import { RedisClient } from "bun";
import type { NewEntry, TimelineEntry } from "./entry.ts";
import { EMPTY, parseLine, type Summary, type TimelineLog } from "./log.ts";

/**
 * Without a data dir and with Redis: a list per workspace beside the records (`<prefix>!timeline:<name>`,
 * a mark no workspace name can start with), trimmed to `keep`, living as long as a record does.
 */
export class RedisLog implements TimelineLog {
  readonly screens = false;
  private client: RedisClient | null = null;

  constructor(
    private readonly url: string,
    private readonly prefix: string,
    private readonly keep: number,
    private readonly ttl: number,
  ) {}

  private get redis(): RedisClient {
    this.client ??= new RedisClient(this.url, {
      connectionTimeout: 3000,
      maxRetries: 3,
      autoReconnect: true,
    });
    return this.client;
  }

  private keys(workspace: string): [string, string] {
    return [`${this.prefix}!timeline:${workspace}`, `${this.prefix}!timeline-n:${workspace}`];
  }

  async append(workspace: string, entry: NewEntry): Promise<TimelineEntry> {
    const [list, counter] = this.keys(workspace);
    const n = Number(await this.redis.send("INCR", [counter]));
    const full: TimelineEntry = { ...entry, n };
    const ttl = String(Math.max(1, Math.ceil(this.ttl)));
    await Promise.all([
      this.redis.send("RPUSH", [list, JSON.stringify(full)]),
      this.redis.send("LTRIM", [list, String(-this.keep), "-1"]),
      this.redis.send("EXPIRE", [list, ttl]),
      this.redis.send("EXPIRE", [counter, ttl]),
    ]);
    return full;
  }

  async all(workspace: string): Promise<TimelineEntry[]> {
    const [list] = this.keys(workspace);
    const lines = (await this.redis.send("LRANGE", [list, "0", "-1"])) as string[] | null;
    return (lines ?? []).flatMap((l) => parseLine(String(l)) ?? []);
  }

  async screen(): Promise<null> {
    return null;
  }

  async clear(workspace: string, what: "screens" | "all"): Promise<number> {
    if (what === "screens") return 0;
    const [list, counter] = this.keys(workspace);
    const n = Number(await this.redis.send("LLEN", [list]));
    await this.redis.send("DEL", [list, counter]);
    return n;
  }

  async summary(workspace: string): Promise<Summary> {
    const [list, counter] = this.keys(workspace);
    const [len, last, newest] = await Promise.all([
      this.redis.send("LLEN", [list]),
      this.redis.send("GET", [counter]),
      this.redis.send("LINDEX", [list, "-1"]),
    ]);
    const entry = newest ? parseLine(String(newest)) : null;
    if (!entry) return EMPTY;
    return { entries: Number(len), screens: 0, last: Number(last ?? 0), newest: entry.time };
  }

  close(): void {
    this.client?.close();
    this.client = null;
  }
}
