// Workspace leases in Redis: taken in arrival order through a queue, renewed, released, and watched for.
import { RedisClient } from "bun";
import { CLIENT_OPTIONS, NOW_MS, type RedisConnection, script } from "./redis-client.ts";
import { LEASE, LEASE_FREE, LEASE_QUEUE, LEASE_SEQ, NUDGE } from "./redis-keys.ts";

/** Each waiting ticket's deadline, a sorted set (a new name: the hash it replaces had another type). */
export const LEASE_DEADLINES = "!lease-deadlines:";

/**
 * Takes the lease KEYS[1] for ARGV[2] ms for the ticket ARGV[1] when it is free and the ticket is
 * first in the queue (KEYS[2]: tickets by arrival; KEYS[3]: tickets by deadline, a sorted set, so a
 * poll reads only the tickets whose deadline passed, not the whole queue; KEYS[4]: the token
 * counter). Otherwise keeps the ticket in line and replies 0; tickets not renewed go. With KEYS[5]
 * (the workspace's record), a grant replies the token and what KEYS[5] holds, in the same step.
 */
const TAKE_LEASE = `${NOW_MS}
local ms = tonumber(ARGV[2])
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 100)
for _, t in ipairs(gone) do
  if t ~= ARGV[1] then
    redis.call('ZREM', KEYS[3], t)
    redis.call('ZREM', KEYS[2], t)
  end
end
local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if redis.call('EXISTS', KEYS[1]) == 1 or (head and head ~= ARGV[1]) then
  if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
    redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[4]), ARGV[1])
  end
  redis.call('ZADD', KEYS[3], now + ms, ARGV[1])
  redis.call('PEXPIRE', KEYS[2], ms)
  redis.call('PEXPIRE', KEYS[3], ms)
  return 0
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
local token = redis.call('INCR', KEYS[4])
if not redis.call('SET', KEYS[1], token, 'NX', 'PX', ms) then return 0 end
if KEYS[5] then return {token, redis.call('GET', KEYS[5])} end
return token`;
const RENEW_LEASE = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;
/** Gives the lease back while ARGV[1] holds it, and says so on the channel ARGV[2] (with its name, ARGV[3]). */
const RELEASE_LEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], ARGV[3])
end
return 1`;
const LEAVE_QUEUE = `redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1`;

const SCRIPTS = {
  take: script(TAKE_LEASE),
  renew: script(RENEW_LEASE),
  release: script(RELEASE_LEASE),
  leave: script(LEAVE_QUEUE),
};

export class RedisLeases {
  /** A connection in subscribe mode, opened for the first watcher. */
  private listening: RedisClient | null = null;
  private readonly watchers = new Set<(name: string) => void>();
  private readonly nudged = new Set<(name: string) => void>();

  constructor(
    private readonly conn: RedisConnection,
    private readonly prefix: string,
  ) {}

  async takeLease(name: string, ticket: string, ms: number): Promise<number | null> {
    const token = Number(await this.take(name, ticket, ms, []));
    return token > 0 ? token : null;
  }

  /** The lease and, on a grant, the raw text under `record` (null: none), read in the same script. */
  async takeReading(
    name: string,
    ticket: string,
    ms: number,
    record: string,
  ): Promise<{ token: number; raw: string | null } | null> {
    const reply = await this.take(name, ticket, ms, [record]);
    if (!Array.isArray(reply)) return null;
    const [token, raw] = reply;
    return { token: Number(token), raw: raw === null || raw === undefined ? null : String(raw) };
  }

  private take(name: string, ticket: string, ms: number, record: string[]): Promise<unknown> {
    const p = this.prefix;
    return this.conn.run(
      SCRIPTS.take,
      [p + LEASE + name, p + LEASE_QUEUE + name, p + LEASE_DEADLINES + name, p + LEASE_SEQ, ...record],
      [ticket, String(Math.max(1, Math.ceil(ms)))],
    );
  }

  async renewLease(name: string, token: number, ms: number): Promise<boolean> {
    const reply = await this.conn.run(
      SCRIPTS.renew,
      [this.prefix + LEASE + name],
      [String(token), String(Math.max(1, Math.ceil(ms)))],
    );
    return Number(reply) === 1;
  }

  async releaseLease(name: string, token: number): Promise<void> {
    await this.conn.run(
      SCRIPTS.release,
      [this.prefix + LEASE + name],
      [String(token), this.prefix + LEASE_FREE, name],
    );
  }

  async breakLease(name: string): Promise<void> {
    await this.conn.command("DEL", [this.prefix + LEASE + name]);
    await this.conn.command("PUBLISH", [this.prefix + LEASE_FREE, name]).catch(() => undefined);
  }

  watchLeases(listener: (name: string) => void): () => void {
    this.watchers.add(listener);
    this.listen();
    return () => {
      this.watchers.delete(listener);
    };
  }

  async nudge(name: string): Promise<void> {
    await this.conn.command("PUBLISH", [this.prefix + NUDGE, name]);
  }

  watchNudges(listener: (name: string) => void): () => void {
    this.nudged.add(listener);
    this.listen();
    return () => {
      this.nudged.delete(listener);
    };
  }

  private listen(): void {
    if (this.listening || this.conn.closed) return;
    const client = new RedisClient(this.conn.url, CLIENT_OPTIONS);
    this.listening = client;
    const failed = () => {
      // Waiters still look on their own; the next watcher tries again.
      if (this.listening === client) this.listening = null;
      client.close();
    };
    const to = (set: Set<(name: string) => void>) => (name: string) => {
      for (const w of set) w(name);
    };
    client.subscribe(this.prefix + LEASE_FREE, to(this.watchers)).catch(failed);
    client.subscribe(this.prefix + NUDGE, to(this.nudged)).catch(failed);
  }

  async leaveLeaseQueue(name: string, ticket: string): Promise<void> {
    const p = this.prefix;
    await this.conn.run(SCRIPTS.leave, [p + LEASE_QUEUE + name, p + LEASE_DEADLINES + name], [ticket]);
  }

  close(): void {
    this.listening?.close();
    this.listening = null;
    this.watchers.clear();
    this.nudged.clear();
  }
}
