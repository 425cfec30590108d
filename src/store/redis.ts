// The shared record store: Redis through Bun's RedisClient. Plain reads and writes share one
// pipelined connection. WATCH is per connection, so each `update` borrows a connection of its own
// from a small pool for its WATCH, GET, MULTI/SET/EXEC.
import { RedisClient } from "bun";
import { FlowError, StoreConflict, unavailable } from "../errors.ts";
import { DEFAULT_TTL_SECONDS, fromJson, toJson, type WorkspaceRecord } from "./record.ts";
import type { RecordStore, UpdateFn } from "./types.ts";

export const UPDATE_RETRIES = 10;
// Admin sign-ins live under the prefix too, behind a mark no workspace name can start with.
const SESSION_MARK = "!admin-session:";

export interface RedisStoreOptions {
  /** `redis://` or `rediss://`, with an optional `/db`. */
  url: string;
  ttl?: number;
  /** Prepended to every key (default `sf:`). */
  prefix?: string;
  /** Connections kept for updates (default 16). */
  poolSize?: number;
  /** How long a command may take before the store counts as not answering (default 5000 ms). */
  timeoutMs?: number;
}

const CLIENT_OPTIONS = { connectionTimeout: 3000, maxRetries: 3, autoReconnect: true };

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

export class RedisStore implements RecordStore {
  readonly kind = "redis" as const;
  readonly ttl: number;
  readonly prefix: string;
  private readonly url: string;
  private readonly where: string;
  private readonly poolSize: number;
  private readonly timeoutMs: number;
  private shared: RedisClient | null = null;
  private readonly idle: RedisClient[] = [];
  private readonly waiting: Array<{ resolve: (c: RedisClient) => void; reject: (e: Error) => void }> = [];
  private lent = 0;
  private readonly queues = new Map<string, Promise<void>>();
  private closed = false;

  constructor(options: RedisStoreOptions) {
    this.url = options.url;
    this.where = redactedUrl(options.url);
    this.ttl = Math.max(1, Math.ceil(options.ttl ?? DEFAULT_TTL_SECONDS));
    this.prefix = options.prefix ?? "sf:";
    this.poolSize = Math.max(1, options.poolSize ?? 16);
    this.timeoutMs = options.timeoutMs ?? 5000;
  }

  async get(key: string): Promise<WorkspaceRecord | null> {
    const raw = await this.command("GET", [this.prefix + key]);
    return raw === null || raw === undefined ? null : fromJson(raw);
  }

  async set(key: string, record: WorkspaceRecord): Promise<void> {
    await this.command("SET", [this.prefix + key, toJson(record), "EX", String(this.ttl)]);
  }

  /**
   * Updates of one key from this process queue behind each other: they would only knock each
   * other's WATCH over. WATCH then settles races with other processes.
   */
  async update(key: string, fn: UpdateFn): Promise<WorkspaceRecord | null> {
    const before = this.queues.get(key);
    const mine = (before ?? Promise.resolve()).then(() => this.transaction(key, fn));
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

  private async transaction(key: string, fn: UpdateFn): Promise<WorkspaceRecord | null> {
    const full = this.prefix + key;
    const conn = await this.borrow();
    let healthy = false;
    try {
      for (let attempt = 0; ; attempt++) {
        // Pipelined: the shorter the time between WATCH and EXEC, the fewer retries.
        const [, raw] = await Promise.all([this.on(conn, "WATCH", [full]), this.on(conn, "GET", [full])]);
        const current = raw === null || raw === undefined ? null : fromJson(raw);
        let next: WorkspaceRecord | null;
        try {
          next = fn(current);
        } catch (err) {
          await this.on(conn, "UNWATCH", []);
          healthy = true;
          throw err;
        }
        if (next === null) {
          await this.on(conn, "UNWATCH", []);
          healthy = true;
          return current;
        }
        // One connection keeps order, so the three go out together.
        const [, , done] = await Promise.all([
          this.on(conn, "MULTI", []),
          this.on(conn, "SET", [full, toJson(next), "EX", String(this.ttl)]),
          this.on(conn, "EXEC", []),
        ]);
        if (done !== null) {
          healthy = true;
          return next;
        }
        if (attempt + 1 >= UPDATE_RETRIES) {
          healthy = true;
          throw new StoreConflict(key);
        }
        await Bun.sleep(backoff(attempt));
      }
    } finally {
      this.giveBack(conn, healthy);
    }
  }

  async delete(key: string): Promise<boolean> {
    return Number(await this.command("DEL", [this.prefix + key])) > 0;
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
        if (!key.startsWith(SESSION_MARK)) found.add(key);
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
    for (const c of this.idle.splice(0)) c.close();
    for (const w of this.waiting.splice(0)) w.reject(closedError());
  }

  /** A command on the shared connection; a failed connection is replaced on the next call. */
  private async command(name: string, args: string[]): Promise<unknown> {
    if (this.closed) throw closedError();
    this.shared ??= new RedisClient(this.url, CLIENT_OPTIONS);
    const client = this.shared;
    try {
      return await this.on(client, name, args);
    } catch (err) {
      if (err instanceof StoreDown && this.shared === client) {
        this.shared = null;
        client.close();
      }
      throw err;
    }
  }

  private async on(client: RedisClient, name: string, args: string[]): Promise<unknown> {
    let timer: Timer | undefined;
    try {
      return await Promise.race([
        client.send(name, args),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Timeout(this.timeoutMs)), this.timeoutMs);
        }),
      ]);
    } catch (err) {
      throw this.failure(err);
    } finally {
      clearTimeout(timer);
    }
  }

  private failure(err: unknown): FlowError {
    if (err instanceof FlowError) return err;
    const message = err instanceof Error ? err.message : String(err);
    const code = (err as { code?: unknown } | null)?.code;
    if (code === "ERR_REDIS_SERVER_ERROR") {
      return unavailable(`the record store at ${this.where} refused a command: ${message}`);
    }
    return new StoreDown(`the record store at ${this.where} did not answer: ${message}`);
  }

  private async borrow(): Promise<RedisClient> {
    if (this.closed) throw closedError();
    const ready = this.idle.pop();
    if (ready) {
      this.lent++;
      return ready;
    }
    if (this.lent < this.poolSize) {
      this.lent++;
      return new RedisClient(this.url, CLIENT_OPTIONS);
    }
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** A connection whose transaction state is unknown (an error mid-way) is closed, not reused. */
  private giveBack(conn: RedisClient, healthy: boolean): void {
    if (!healthy || this.closed) {
      conn.close();
      this.lent--;
      const next = this.waiting.shift();
      if (next) {
        this.lent++;
        next.resolve(new RedisClient(this.url, CLIENT_OPTIONS));
      }
      return;
    }
    const next = this.waiting.shift();
    if (next) next.resolve(conn);
    else {
      this.lent--;
      this.idle.push(conn);
    }
  }
}

/** A connection-level failure (as opposed to a command Redis refused). */
class StoreDown extends FlowError {
  constructor(message: string) {
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
