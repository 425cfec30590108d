// The shared record store: Redis through Bun's RedisClient, every command on one auto-pipelined
// connection. `update` reads the record (or takes the value this process last saw), applies `fn`,
// and writes with a compare-and-set script: one round trip when nothing else wrote the key.
import { LeaseLost, StoreConflict, unavailable } from "../errors.ts";
import { KeyedQueue } from "../kit/queue.ts";
import { ParsedRecords } from "./parsed.ts";
import { DEFAULT_TTL_SECONDS, ttlOf, type WorkspaceRecord } from "./record.ts";
import { RedisConnection, redactedUrl, script } from "./redis-client.ts";
import { LEASE } from "./redis-keys.ts";
import { RedisLeases } from "./redis-leases.ts";
import { RedisSessions } from "./redis-sessions.ts";
import { backoff, CAS_SCRIPT, FENCED_CAS_SCRIPT, Hints, UPDATE_RETRIES } from "./redis-update.ts";
import { type RecordCodec, writeRecord } from "./seal.ts";
import type {
  Granted,
  LeaseFence,
  McpOpened,
  McpTouch,
  RecordStore,
  UpdateFn,
  UpdateOptions,
} from "./types.ts";

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
  /** Seals site data at rest (seal.ts); without one, records are plain JSON. */
  codec?: RecordCodec;
}

const SCRIPTS = { cas: script(CAS_SCRIPT), fencedCas: script(FENCED_CAS_SCRIPT) };

export class RedisStore implements RecordStore {
  readonly kind = "redis" as const;
  readonly ttl: number;
  readonly prefix: string;
  private readonly where: string;
  private readonly codec: RecordCodec | undefined;
  private readonly parsed: ParsedRecords;
  private readonly hints: Hints;
  private readonly conn: RedisConnection;
  private readonly leases: RedisLeases;
  private readonly sessions: RedisSessions;
  private readonly queues = new KeyedQueue();

  constructor(options: RedisStoreOptions) {
    this.where = redactedUrl(options.url);
    this.codec = options.codec;
    this.parsed = new ParsedRecords(options.codec);
    this.ttl = Math.max(1, Math.ceil(options.ttl ?? DEFAULT_TTL_SECONDS));
    this.prefix = options.prefix ?? "sf:";
    this.conn = new RedisConnection(options.url, this.where, options.timeoutMs ?? 5000);
    this.hints = new Hints(Math.max(0, options.cacheChars ?? 4 * 1024 * 1024));
    this.leases = new RedisLeases(this.conn, this.prefix);
    this.sessions = new RedisSessions(this.conn, this.prefix);
  }

  async get(key: string): Promise<WorkspaceRecord | null> {
    const raw = await this.read(this.prefix + key);
    return raw === null ? null : this.parsed.read(key, raw);
  }

  async set(key: string, record: WorkspaceRecord): Promise<void> {
    const full = this.prefix + key;
    const json = writeRecord(record, this.codec);
    try {
      await this.command("SET", [full, json, "EX", String(ttlOf(key, this.ttl))]);
      this.hints.set(full, json);
      this.parsed.wrote(key, json, record);
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
    return this.queues.run(key, () => this.apply(key, fn, opts.fence));
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
        const current = raw === null ? null : this.parsed.read(key, raw);
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
        const json = writeRecord(next, this.codec);
        const reply = await this.compareAndSet(
          full,
          digest ?? raw,
          json,
          digest !== undefined,
          fence,
          ttlOf(key, this.ttl),
        );
        if (reply === -1) throw new LeaseLost(key);
        if (reply === 1) {
          this.hints.set(full, json);
          this.parsed.wrote(key, json, next);
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
    fence: LeaseFence | undefined,
    ttl: number,
  ): Promise<1 | 0 | -1 | string> {
    const args = [json, String(ttl)];
    if (expected !== null) args.push(expected);
    if (byDigest) args.push("sha1");
    const reply = fence
      ? await this.conn.run(
          SCRIPTS.fencedCas,
          [full, this.prefix + LEASE + fence.name],
          [String(fence.token), ...args],
        )
      : await this.conn.run(SCRIPTS.cas, [full], args);
    if (reply === 1 || reply === 0 || reply === -1 || typeof reply === "string") return reply;
    throw unavailable(
      `the record store at ${this.where} gave an unexpected reply to an update: retry the call`,
    );
  }

  /** The value's bytes as text (undecodable bytes replaced) and their SHA-1; not kept as a hint. */
  private async readBytes(full: string): Promise<{ raw: string | null; digest: string | undefined }> {
    this.hints.delete(full);
    const bytes = await this.conn.call((c) => c.getBuffer(full));
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
    this.parsed.forget(key);
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

  // ---- leases and the short-lived keys beside the records (redis-leases.ts, redis-sessions.ts)

  takeLease(name: string, ticket: string, ms: number): Promise<number | null> {
    return this.leases.takeLease(name, ticket, ms);
  }

  async takeLeaseReading(name: string, ticket: string, ms: number): Promise<Granted | null> {
    const full = this.prefix + name;
    const granted = await this.leases.takeReading(name, ticket, ms, full);
    if (!granted) return null;
    this.hints.set(full, granted.raw);
    const record = granted.raw === null ? null : this.parsed.read(name, granted.raw);
    return { token: granted.token, record };
  }

  renewLease(name: string, token: number, ms: number): Promise<boolean> {
    return this.leases.renewLease(name, token, ms);
  }

  releaseLease(name: string, token: number): Promise<void> {
    return this.leases.releaseLease(name, token);
  }

  breakLease(name: string): Promise<void> {
    return this.leases.breakLease(name);
  }

  watchLeases(listener: (name: string) => void): () => void {
    return this.leases.watchLeases(listener);
  }

  nudge(name: string): Promise<void> {
    return this.leases.nudge(name);
  }

  watchNudges(listener: (name: string) => void): () => void {
    return this.leases.watchNudges(listener);
  }

  leaveLeaseQueue(name: string, ticket: string): Promise<void> {
    return this.leases.leaveLeaseQueue(name, ticket);
  }

  openMcpSession(
    id: string,
    info: string,
    seconds: number,
    max: number,
    busy: readonly string[] = [],
  ): Promise<McpOpened> {
    return this.sessions.openMcpSession(id, info, seconds, max, busy);
  }

  mcpSession(id: string, seconds: number, touch: McpTouch = {}): Promise<string | null> {
    return this.sessions.mcpSession(id, seconds, touch);
  }

  closeMcpSession(id: string): Promise<boolean> {
    return this.sessions.closeMcpSession(id);
  }

  putMark(name: string, seconds: number): Promise<void> {
    return this.sessions.putMark(name, seconds);
  }

  hasMark(name: string): Promise<boolean> {
    return this.sessions.hasMark(name);
  }

  putSignIn(id: string, seconds: number): Promise<void> {
    return this.sessions.putSignIn(id, seconds);
  }

  hasSignIn(id: string): Promise<boolean> {
    return this.sessions.hasSignIn(id);
  }

  dropSignIn(id: string): Promise<void> {
    return this.sessions.dropSignIn(id);
  }

  async ping(): Promise<boolean> {
    try {
      return (await this.command("PING", [])) === "PONG";
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.conn.close();
    this.leases.close();
    this.hints.clear();
  }

  private command(name: string, args: string[]): Promise<unknown> {
    return this.conn.command(name, args);
  }
}

function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}
