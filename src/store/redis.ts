// The shared record store: Redis through Bun's RedisClient, every command on one auto-pipelined
// connection. `update` reads the record (or takes the value this process last saw), applies `fn`,
// and writes with a compare-and-set script: one round trip when nothing else wrote the key.
import { RedisClient } from "bun";
import { FlowError, LeaseLost, StoreConflict, unavailable } from "../errors.ts";
import { DEFAULT_TTL_SECONDS, fromJson, toJson, type WorkspaceRecord } from "./record.ts";
import type { LeaseFence, RecordStore, UpdateFn, UpdateOptions } from "./types.ts";

export const UPDATE_RETRIES = 10;
// Everything that is not a record lives under the prefix too, behind a `!` no workspace name can
// start with: admin sign-ins, leases and their queues, MCP sessions, marks, timelines
// (src/timeline/log.ts).
const SESSION_MARK = "!admin-session:";
const LEASE = "!lease:";
const LEASE_QUEUE = "!lease-queue:";
const LEASE_ALIVE = "!lease-alive:";
const LEASE_SEQ = "!lease-seq";
const MCP_SESSION = "!mcp-session:";
const MCP_SESSIONS = "!mcp-sessions";
const MARK = "!mark:";
const LEASE_FREE = "!lease-free";

export interface RedisStoreOptions {
  /** `redis://` or `rediss://`, with an optional `/db`. */
  url: string;
  ttl?: number;
  /** Prepended to every key (default `sf:`). */
  prefix?: string;
  /** How long a command may take before the store counts as not answering (default 5000 ms). */
  timeoutMs?: number;
  /** Characters of stored values kept as update hints (default 4 Mi; 0 reads before every update). */
  cacheChars?: number;
}

const CLIENT_OPTIONS = { connectionTimeout: 3000, maxRetries: 3, autoReconnect: true };

/**
 * Compare-and-set: KEYS[1] gets ARGV[1] with a TTL of ARGV[2] s only while it still holds
 * ARGV[3] (no ARGV[3]: only while it is absent; with ARGV[4]: ARGV[3] is the SHA-1 of what it
 * holds). Replies 1 when written, else what the key holds now (0 for nothing), so a retry needs
 * no read of its own.
 */
export const CAS_SCRIPT = `local current = redis.call('GET', KEYS[1])
local seen = current
if ARGV[4] and current then seen = redis.sha1hex(current) end
if seen ~= (ARGV[3] or false) then return current or 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1`;
/**
 * The same, only while the lease KEYS[2] still holds the token ARGV[1] (else -1); the record's
 * arguments follow it: ARGV[2] the value, ARGV[3] the TTL, ARGV[4] what it must hold, ARGV[5] sha1.
 */
export const FENCED_CAS_SCRIPT = `if redis.call('GET', KEYS[2]) ~= ARGV[1] then return -1 end
local current = redis.call('GET', KEYS[1])
local seen = current
if ARGV[5] and current then seen = redis.sha1hex(current) end
if seen ~= (ARGV[4] or false) then return current or 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1`;

// Redis's own clock, in ms, so every server of a group measures a lease alike.
const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * Takes the lease KEYS[1] for ARGV[2] ms for the ticket ARGV[1] when it is free and the ticket is
 * first in the queue (KEYS[2]: tickets by arrival; KEYS[3]: each ticket's deadline; KEYS[4]: the
 * token counter). Otherwise keeps the ticket in line and replies 0; tickets not renewed go.
 */
const TAKE_LEASE = `${NOW_MS}
local ms = tonumber(ARGV[2])
local deadlines = redis.call('HGETALL', KEYS[3])
for i = 1, #deadlines, 2 do
  if tonumber(deadlines[i + 1]) <= now and deadlines[i] ~= ARGV[1] then
    redis.call('HDEL', KEYS[3], deadlines[i])
    redis.call('ZREM', KEYS[2], deadlines[i])
  end
end
local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if redis.call('EXISTS', KEYS[1]) == 1 or (head and head ~= ARGV[1]) then
  if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
    redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[4]), ARGV[1])
  end
  redis.call('HSET', KEYS[3], ARGV[1], now + ms)
  redis.call('PEXPIRE', KEYS[2], ms)
  redis.call('PEXPIRE', KEYS[3], ms)
  return 0
end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
local token = redis.call('INCR', KEYS[4])
if not redis.call('SET', KEYS[1], token, 'NX', 'PX', ms) then return 0 end
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
redis.call('HDEL', KEYS[2], ARGV[1])
return 1`;
/** Opens the session KEYS[1] (workspace ARGV[1], ARGV[2] ms idle) unless ARGV[3] are open (0). */
const OPEN_MCP = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[4])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;
/** The session's workspace, its idle time restarted; false when it is gone. */
const TOUCH_MCP = `${NOW_MS}
local workspace = redis.call('GET', KEYS[1])
if not workspace then
  redis.call('ZREM', KEYS[2], ARGV[2])
  return false
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), ARGV[2])
return workspace`;

interface Script {
  text: string;
  sha: string;
}
const script = (text: string): Script => ({
  text,
  sha: new Bun.CryptoHasher("sha1").update(text).digest("hex"),
});
const SCRIPTS = {
  cas: script(CAS_SCRIPT),
  fencedCas: script(FENCED_CAS_SCRIPT),
  take: script(TAKE_LEASE),
  renew: script(RENEW_LEASE),
  release: script(RELEASE_LEASE),
  leave: script(LEAVE_QUEUE),
  openMcp: script(OPEN_MCP),
  touchMcp: script(TOUCH_MCP),
};
const MAX_HINTS = 4096;

/** The URL with no user or password, for messages. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === "/" ? "" : u.pathname}`;
  } catch {
    return "(an unparsable URL)";
  }
}

class Timeout extends Error {
  constructor(ms: number) {
    super(`no reply within ${ms} ms`);
  }
}

/**
 * The raw value this process last saw stored under each key (null: absent), newest last, within
 * a character budget. Only a hint: the compare-and-set proves it before anything is written.
 */
class Hints {
  private readonly values = new Map<string, string | null>();
  private chars = 0;
  constructor(private readonly budget: number) {}

  get(key: string): string | null | undefined {
    return this.values.get(key);
  }

  set(key: string, raw: string | null): void {
    this.delete(key);
    const size = raw?.length ?? 0;
    if (this.budget === 0 || size > this.budget / 8) return;
    this.values.set(key, raw);
    this.chars += size;
    // A Map iterates in insertion order, so the first keys are the least recently seen.
    for (const old of this.values.keys()) {
      if (this.chars <= this.budget && this.values.size <= MAX_HINTS) break;
      this.delete(old);
    }
  }

  delete(key: string): void {
    if (!this.values.has(key)) return;
    this.chars -= this.values.get(key)?.length ?? 0;
    this.values.delete(key);
  }

  clear(): void {
    this.values.clear();
    this.chars = 0;
  }
}

export class RedisStore implements RecordStore {
  readonly kind = "redis" as const;
  readonly ttl: number;
  readonly prefix: string;
  private readonly url: string;
  private readonly where: string;
  private readonly timeoutMs: number;
  private readonly hints: Hints;
  private shared: RedisClient | null = null;
  /** A connection in subscribe mode, opened for the first lease watcher. */
  private listening: RedisClient | null = null;
  private readonly watchers = new Set<(name: string) => void>();
  private readonly queues = new Map<string, Promise<void>>();
  private closed = false;

  constructor(options: RedisStoreOptions) {
    this.url = options.url;
    this.where = redactedUrl(options.url);
    this.ttl = Math.max(1, Math.ceil(options.ttl ?? DEFAULT_TTL_SECONDS));
    this.prefix = options.prefix ?? "sf:";
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.hints = new Hints(Math.max(0, options.cacheChars ?? 4 * 1024 * 1024));
  }

  async get(key: string): Promise<WorkspaceRecord | null> {
    const raw = await this.read(this.prefix + key);
    return raw === null ? null : fromJson(raw);
  }

  async set(key: string, record: WorkspaceRecord): Promise<void> {
    const full = this.prefix + key;
    const json = toJson(record);
    try {
      await this.command("SET", [full, json, "EX", String(this.ttl)]);
      this.hints.set(full, json);
    } catch (err) {
      this.hints.delete(full);
      throw err;
    }
  }

  /**
   * Updates of one key from this process queue behind each other: they would only knock each
   * other's compare-and-set over. The compare-and-set settles races with other processes.
   */
  async update(key: string, fn: UpdateFn, opts: UpdateOptions = {}): Promise<WorkspaceRecord | null> {
    const before = this.queues.get(key);
    const mine = (before ?? Promise.resolve()).then(() => this.apply(key, fn, opts.fence));
    const tail = mine.then(
      () => {},
      () => {},
    );
    this.queues.set(key, tail);
    try {
      return await mine;
    } finally {
      if (this.queues.get(key) === tail) this.queues.delete(key);
    }
  }

  private async apply(key: string, fn: UpdateFn, fence?: LeaseFence): Promise<WorkspaceRecord | null> {
    const full = this.prefix + key;
    try {
      let raw = this.hints.get(full);
      // A hint may be stale. A write proves it; a decision to write nothing (null, or a throw)
      // stands only on a value read during this update.
      let fresh = raw === undefined;
      if (raw === undefined) raw = await this.read(full);
      // Set while the stored bytes are not UTF-8 text: the text read back cannot match them, so the
      // compare-and-set compares their SHA-1 instead.
      let digest: string | undefined;
      for (let conflicts = 0; ; ) {
        const current = raw === null ? null : fromJson(raw);
        let next: WorkspaceRecord | null;
        try {
          next = fn(current);
        } catch (err) {
          if (fresh) throw err;
          const now = await this.read(full);
          if (now === raw) throw err;
          [raw, fresh] = [now, true];
          continue;
        }
        if (next === null) {
          // No write, so no TTL slide: as before, null leaves the record exactly as it is.
          if (fresh) return current;
          const now = await this.read(full);
          if (now === raw) return current;
          [raw, fresh] = [now, true];
          continue;
        }
        const json = toJson(next);
        const reply = await this.compareAndSet(full, digest ?? raw, json, digest !== undefined, fence);
        if (reply === -1) throw new LeaseLost(key);
        if (reply === 1) {
          this.hints.set(full, json);
          return next;
        }
        fresh = true;
        const now = typeof reply === "string" ? reply : null;
        if (now !== null && now === raw) {
          // Unequal as bytes yet equal as text: compare the bytes' digest from now on.
          ({ raw, digest } = await this.readBytes(full));
        } else {
          [raw, digest] = [now, undefined];
          this.hints.set(full, raw);
        }
        if (++conflicts >= UPDATE_RETRIES) throw new StoreConflict(key);
        if (digest === undefined) await Bun.sleep(backoff(conflicts - 1));
      }
    } catch (err) {
      this.hints.delete(full);
      throw err;
    }
  }

  /**
   * 1 when written; otherwise what the key holds (a string) or 0 when it holds nothing; -1 when
   * the fence's lease is no longer its token's.
   */
  private async compareAndSet(
    full: string,
    expected: string | null,
    json: string,
    byDigest: boolean,
    fence?: LeaseFence,
  ): Promise<1 | 0 | -1 | string> {
    const args = [json, String(this.ttl)];
    if (expected !== null) args.push(expected);
    if (byDigest) args.push("sha1");
    const reply = fence
      ? await this.run(
          SCRIPTS.fencedCas,
          [full, this.prefix + LEASE + fence.name],
          [String(fence.token), ...args],
        )
      : await this.run(SCRIPTS.cas, [full], args);
    if (reply === 1 || reply === 0 || reply === -1 || typeof reply === "string") return reply;
    throw unavailable(
      `the record store at ${this.where} gave an unexpected reply to an update: retry the call`,
    );
  }

  /** Runs a script by its digest; a restarted or flushed Redis has lost it, and EVAL caches it again. */
  private async run(s: Script, keys: string[], args: string[]): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await this.command("EVALSHA", [s.sha, ...tail]);
    } catch (err) {
      if (!(err instanceof StoreRefused && err.reply.startsWith("NOSCRIPT"))) throw err;
      return await this.command("EVAL", [s.text, ...tail]);
    }
  }

  /** The value's bytes as text (undecodable bytes replaced) and their SHA-1; not kept as a hint. */
  private async readBytes(full: string): Promise<{ raw: string | null; digest: string | undefined }> {
    this.hints.delete(full);
    const bytes = await this.call((c) => c.getBuffer(full));
    if (bytes === null || bytes === undefined) return { raw: null, digest: undefined };
    return {
      raw: new TextDecoder().decode(bytes),
      digest: new Bun.CryptoHasher("sha1").update(bytes).digest("hex"),
    };
  }

  /** The raw value under a full key (null when absent), remembered as a hint. */
  private async read(full: string): Promise<string | null> {
    try {
      const value = await this.command("GET", [full]);
      const raw = value === null || value === undefined ? null : String(value);
      this.hints.set(full, raw);
      return raw;
    } catch (err) {
      this.hints.delete(full);
      throw err;
    }
  }

  async delete(key: string): Promise<boolean> {
    const full = this.prefix + key;
    this.hints.delete(full);
    const removed = Number(await this.command("DEL", [full])) > 0;
    this.hints.set(full, null);
    return removed;
  }

  async keys(): Promise<string[]> {
    const found = new Set<string>();
    const match = `${globEscape(this.prefix)}*`;
    let cursor = "0";
    do {
      const reply = (await this.command("SCAN", [cursor, "MATCH", match, "COUNT", "500"])) as [
        string,
        string[],
      ];
      cursor = String(reply[0]);
      for (const k of reply[1]) {
        const key = k.slice(this.prefix.length);
        if (!key.startsWith("!")) found.add(key);
      }
    } while (cursor !== "0");
    return [...found].sort();
  }

  async expiresIn(key: string): Promise<number | null> {
    const ms = Number(await this.command("PTTL", [this.prefix + key]));
    if (ms === -2) return null;
    // -1: someone stored the key without a TTL; it never expires.
    return ms === -1 ? Number.POSITIVE_INFINITY : ms / 1000;
  }

  async takeLease(name: string, ticket: string, ms: number): Promise<number | null> {
    const p = this.prefix;
    const reply = await this.run(
      SCRIPTS.take,
      [p + LEASE + name, p + LEASE_QUEUE + name, p + LEASE_ALIVE + name, p + LEASE_SEQ],
      [ticket, String(Math.max(1, Math.ceil(ms)))],
    );
    const token = Number(reply);
    return token > 0 ? token : null;
  }

  async renewLease(name: string, token: number, ms: number): Promise<boolean> {
    const reply = await this.run(
      SCRIPTS.renew,
      [this.prefix + LEASE + name],
      [String(token), String(Math.max(1, Math.ceil(ms)))],
    );
    return Number(reply) === 1;
  }

  async releaseLease(name: string, token: number): Promise<void> {
    await this.run(
      SCRIPTS.release,
      [this.prefix + LEASE + name],
      [String(token), this.prefix + LEASE_FREE, name],
    );
  }

  async breakLease(name: string): Promise<void> {
    await this.command("DEL", [this.prefix + LEASE + name]);
    await this.command("PUBLISH", [this.prefix + LEASE_FREE, name]).catch(() => undefined);
  }

  watchLeases(listener: (name: string) => void): () => void {
    this.watchers.add(listener);
    if (!this.listening && !this.closed) {
      const client = new RedisClient(this.url, CLIENT_OPTIONS);
      this.listening = client;
      client
        .subscribe(this.prefix + LEASE_FREE, (name) => {
          for (const w of this.watchers) w(name);
        })
        .catch(() => {
          // Waiters still look on their own; the next watcher tries again.
          if (this.listening === client) this.listening = null;
          client.close();
        });
    }
    return () => {
      this.watchers.delete(listener);
    };
  }

  async leaveLeaseQueue(name: string, ticket: string): Promise<void> {
    const p = this.prefix;
    await this.run(SCRIPTS.leave, [p + LEASE_QUEUE + name, p + LEASE_ALIVE + name], [ticket]);
  }

  async openMcpSession(id: string, workspace: string, seconds: number, max: number): Promise<boolean> {
    const p = this.prefix;
    const reply = await this.run(
      SCRIPTS.openMcp,
      [p + MCP_SESSION + id, p + MCP_SESSIONS],
      [workspace, String(Math.max(1, Math.round(seconds * 1000))), String(max), id],
    );
    return Number(reply) === 1;
  }

  async mcpSession(id: string, seconds: number): Promise<string | null> {
    const p = this.prefix;
    const reply = await this.run(
      SCRIPTS.touchMcp,
      [p + MCP_SESSION + id, p + MCP_SESSIONS],
      [String(Math.max(1, Math.round(seconds * 1000))), id],
    );
    return typeof reply === "string" ? reply : null;
  }

  async closeMcpSession(id: string): Promise<boolean> {
    const p = this.prefix;
    const removed = Number(await this.command("DEL", [p + MCP_SESSION + id])) > 0;
    await this.command("ZREM", [p + MCP_SESSIONS, id]);
    return removed;
  }

  async putMark(name: string, seconds: number): Promise<void> {
    await this.command("SET", [
      this.prefix + MARK + name,
      "1",
      "PX",
      String(Math.max(1, Math.round(seconds * 1000))),
    ]);
  }

  async hasMark(name: string): Promise<boolean> {
    return Number(await this.command("EXISTS", [this.prefix + MARK + name])) > 0;
  }

  async putSession(id: string, seconds: number): Promise<void> {
    await this.command("SET", [
      this.prefix + SESSION_MARK + id,
      "1",
      "EX",
      String(Math.max(1, Math.ceil(seconds))),
    ]);
  }

  async hasSession(id: string): Promise<boolean> {
    return Number(await this.command("EXISTS", [this.prefix + SESSION_MARK + id])) > 0;
  }

  async dropSession(id: string): Promise<void> {
    await this.command("DEL", [this.prefix + SESSION_MARK + id]);
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.command("PING", [])) === "PONG";
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.shared?.close();
    this.shared = null;
    this.listening?.close();
    this.listening = null;
    this.watchers.clear();
    this.hints.clear();
  }

  /** A command on the shared connection; a failed connection is replaced on the next call. */
  private command(name: string, args: string[]): Promise<unknown> {
    return this.call((c) => c.send(name, args));
  }

  private async call<T>(run: (client: RedisClient) => Promise<T>): Promise<T> {
    if (this.closed) throw closedError();
    this.shared ??= new RedisClient(this.url, CLIENT_OPTIONS);
    const client = this.shared;
    let timer: Timer | undefined;
    try {
      return await Promise.race([
        run(client),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Timeout(this.timeoutMs)), this.timeoutMs);
        }),
      ]);
    } catch (err) {
      const failure = this.failure(err);
      if (failure instanceof StoreDown && this.shared === client) {
        this.shared = null;
        client.close();
      }
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  private failure(err: unknown): FlowError {
    if (err instanceof FlowError) return err;
    const message = err instanceof Error ? err.message : String(err);
    const code = (err as { code?: unknown } | null)?.code;
    if (code === "ERR_REDIS_SERVER_ERROR") {
      return new StoreRefused(`the record store at ${this.where} refused a command: ${message}`, message);
    }
    return new StoreDown(`the record store at ${this.where} did not answer: ${message}`);
  }
}

/** A connection-level failure (as opposed to a command Redis refused). */
class StoreDown extends FlowError {
  constructor(message: string) {
    super("unavailable", message);
  }
}

/** A command Redis answered with an error; `reply` is Redis's own text (`NOSCRIPT …`). */
class StoreRefused extends FlowError {
  constructor(
    message: string,
    readonly reply: string,
  ) {
    super("unavailable", message);
  }
}

const closedError = () => unavailable("the record store is closed: the server is shutting down");

/** Full jitter over an exponential window: 2, 4, 8 … 128 ms. */
function backoff(attempt: number): number {
  return Math.random() * Math.min(128, 2 ** (attempt + 1));
}

function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}
