// The embedded record store: one bun:sqlite table of record JSON with an expiry time per row.
// bun:sqlite is synchronous, so `update` runs read, fn and write inside one BEGIN IMMEDIATE
// transaction without yielding; other processes on the same file wait on the busy timeout.
import { Database, type Statement } from "bun:sqlite";
import { AppError, LeaseLost, unavailable } from "../errors.ts";
import { ParsedRecords } from "./parsed.ts";
import { DEFAULT_TTL_SECONDS, ttlOf, type WorkspaceRecord } from "./record.ts";
import { type RecordCodec, writeRecord } from "./seal.ts";
import { type LeaseStatements, leaseStatements, leaseTransactions } from "./sqlite-leases.ts";
import { createTables, ownerOnly } from "./sqlite-schema.ts";
import type {
  Granted,
  LeaseFence,
  McpOpened,
  McpTouch,
  RecordStore,
  UpdateFn,
  UpdateOptions,
} from "./types.ts";

export interface SqliteStoreOptions {
  /** A file path, or ":memory:" (the default). */
  path?: string;
  /** Seconds a record lives after its last write. */
  ttl?: number;
  /** Epoch seconds; tests move it to age records. */
  now?: () => number;
  busyTimeoutMs?: number;
  /** Seals site data at rest (seal.ts); without one, records are plain JSON. */
  codec?: RecordCodec;
}

interface Row {
  value: unknown;
  expires_at: number;
}

export class SqliteStore implements RecordStore {
  readonly kind = "sqlite" as const;
  readonly ttl: number;
  readonly path: string;
  /** How long a locked file is waited for (SQLite's busy timeout, and whileBusy's). */
  private readonly busyMs: number;
  /** The open database; tests use it to plant rows. */
  readonly db: Database;
  private readonly codec: RecordCodec | undefined;
  private readonly parsed: ParsedRecords;
  private readonly now: () => number;
  private readonly select: Statement<Row, [string]>;
  private readonly write: Statement<unknown, [string, string, number]>;
  private readonly remove: Statement<unknown, [string]>;
  private readonly removeExpired: Statement<unknown, [string, number]>;
  private readonly purge: Statement<unknown, [number]>;
  private readonly live: Statement<{ key: string }, [number]>;
  private readonly atomic: (key: string, fn: UpdateFn, fence?: LeaseFence) => WorkspaceRecord | null;
  private readonly leaseOps: LeaseStatements;
  private readonly leaseSteps: ReturnType<typeof leaseTransactions>;
  private readonly putSignInRow: Statement<unknown, [string, number]>;
  private readonly signInRow: Statement<{ expires_at: number }, [string]>;
  private readonly dropSignInRow: Statement<unknown, [string]>;
  private readonly purgeSignIns: Statement<unknown, [number]>;
  /** When expired marks were last purged (epoch seconds). */
  private marksPurged = 0;

  constructor(options: SqliteStoreOptions = {}) {
    this.path = options.path ?? ":memory:";
    this.ttl = options.ttl ?? DEFAULT_TTL_SECONDS;
    this.now = options.now ?? (() => Date.now() / 1000);
    this.codec = options.codec;
    this.parsed = new ParsedRecords(options.codec);
    // The file holds cookie values: made owner-only before SQLite opens it, so its WAL and SHM
    // (which SQLite creates with the database's mode) are too; an older file is tightened.
    if (this.path !== ":memory:") ownerOnly(this.path);
    this.busyMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000));
    this.db = this.guard(() => new Database(this.path, { create: true, readwrite: true }));
    this.guard(() => {
      // The busy timeout first: the pragmas and the schema below may meet another process's lock.
      this.db.run(`PRAGMA busy_timeout = ${this.busyMs}`);
      this.db.run("PRAGMA journal_mode = WAL");
      this.db.run("PRAGMA synchronous = NORMAL");
      createTables(this.db);
    });
    this.putSignInRow = this.db.query(
      "INSERT INTO admin_sessions (id, expires_at) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at",
    );
    this.signInRow = this.db.query("SELECT expires_at FROM admin_sessions WHERE id = ?");
    this.dropSignInRow = this.db.query("DELETE FROM admin_sessions WHERE id = ?");
    this.purgeSignIns = this.db.query("DELETE FROM admin_sessions WHERE expires_at <= ?");
    this.select = this.db.query("SELECT value, expires_at FROM records WHERE key = ?");
    // An upsert rewrites the row in place; INSERT OR REPLACE deletes and reinserts it, which
    // touches several b-tree pages per write once a few 2 KB records exist (half the speed).
    this.write = this.db.query(
      "INSERT INTO records (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at",
    );
    this.remove = this.db.query("DELETE FROM records WHERE key = ?");
    this.removeExpired = this.db.query("DELETE FROM records WHERE key = ? AND expires_at <= ?");
    this.purge = this.db.query("DELETE FROM records WHERE expires_at <= ?");
    this.live = this.db.query("SELECT key FROM records WHERE expires_at > ? ORDER BY key");
    if (this.path !== ":memory:") for (const end of ["-wal", "-shm"]) ownerOnly(this.path + end, false);
    const ops = leaseStatements(this.db);
    this.leaseOps = ops;
    const held = (fence: LeaseFence, now: number) => {
      const row = ops.lease.get(fence.name);
      return row !== null && row.token === fence.token && row.expires_at > now;
    };
    this.atomic = this.db.transaction((key: string, fn: UpdateFn, fence?: LeaseFence) => {
      const now = this.now();
      if (fence && !held(fence, now)) throw new LeaseLost(key);
      const current = this.read(key, now);
      const next = fn(current);
      if (next === null) {
        if (current === null) this.removeExpired.run(key, now);
        return current;
      }
      this.put(key, next, now);
      return next;
    }).immediate;
    this.leaseSteps = leaseTransactions(
      this.db,
      ops,
      () => this.now(),
      (key, now) => this.read(key, now),
    );
  }

  async get(key: string): Promise<WorkspaceRecord | null> {
    return this.guard(() => {
      const now = this.now();
      const record = this.read(key, now);
      if (record === null) this.removeExpired.run(key, now);
      return record;
    });
  }

  async set(key: string, record: WorkspaceRecord): Promise<void> {
    this.guard(() => this.put(key, record, this.now()));
  }

  async update(key: string, fn: UpdateFn, opts: UpdateOptions = {}): Promise<WorkspaceRecord | null> {
    return this.guard(() => this.atomic(key, fn, opts.fence));
  }

  async delete(key: string): Promise<boolean> {
    return this.guard(() => {
      const existed = this.read(key, this.now()) !== null;
      this.remove.run(key);
      this.parsed.forget(key);
      return existed;
    });
  }

  async keys(): Promise<string[]> {
    return this.guard(() => {
      const now = this.now();
      this.purge.run(now);
      return this.live.all(now).map((r) => r.key);
    });
  }

  async takeLease(name: string, ticket: string, ms: number): Promise<number | null> {
    return this.guard(() => this.leaseSteps.take(name, ticket, ms));
  }

  async takeLeaseReading(name: string, ticket: string, ms: number): Promise<Granted | null> {
    return this.guard(() => this.leaseSteps.takeReading(name, ticket, ms));
  }

  async renewLease(name: string, token: number, ms: number): Promise<boolean> {
    return this.guard(() => {
      const now = this.now();
      return this.leaseOps.renew.run(now + ms / 1000, name, token, now).changes > 0;
    });
  }

  async releaseLease(name: string, token: number): Promise<void> {
    this.guard(() => this.leaseOps.release.run(name, token));
  }

  async breakLease(name: string): Promise<void> {
    this.guard(() => this.leaseOps.breakOne.run(name));
  }

  async leaveLeaseQueue(name: string, ticket: string): Promise<void> {
    this.guard(() => this.leaseOps.leaveLine.run(name, ticket));
  }

  async openMcpSession(
    id: string,
    info: string,
    seconds: number,
    max: number,
    busy: readonly string[] = [],
  ): Promise<McpOpened> {
    return this.guard(() => this.leaseSteps.openMcp(id, info, seconds, max, busy));
  }

  async mcpSession(id: string, seconds: number, touch: McpTouch = {}): Promise<string | null> {
    return this.guard(() => {
      const now = this.now();
      const use = touch.use === false ? 0 : 1;
      const keptUntil = now + (touch.keep ?? 0);
      const row = this.leaseOps.touchMcp.get(now + seconds, use, now, keptUntil, touch.info ?? null, id, now);
      if (row) return row.info;
      this.leaseOps.dropMcp.run(id);
      return null;
    });
  }

  async closeMcpSession(id: string): Promise<boolean> {
    return this.guard(() => this.leaseOps.dropMcp.run(id).changes > 0);
  }

  async putMark(name: string, seconds: number): Promise<void> {
    this.guard(() => {
      const now = this.now();
      // Expired marks go once a second at most: a purge is a scan of the table, a put is not.
      if (now - this.marksPurged >= 1) {
        this.leaseOps.purgeMarks.run(now);
        this.marksPurged = now;
      }
      this.leaseOps.putMark.run(name, now + seconds);
    });
  }

  async hasMark(name: string): Promise<boolean> {
    return this.guard(() => {
      const row = this.leaseOps.mark.get(name);
      return row !== null && row.expires_at > this.now();
    });
  }

  async putSignIn(id: string, seconds: number): Promise<void> {
    this.guard(() => {
      const now = this.now();
      this.purgeSignIns.run(now);
      this.putSignInRow.run(id, now + seconds);
    });
  }

  async hasSignIn(id: string): Promise<boolean> {
    return this.guard(() => {
      const row = this.signInRow.get(id);
      return row !== null && row.expires_at > this.now();
    });
  }

  async dropSignIn(id: string): Promise<void> {
    this.guard(() => this.dropSignInRow.run(id));
  }

  async ping(): Promise<boolean> {
    try {
      this.db.query("SELECT 1").get();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.db.close(false);
  }

  private read(key: string, now: number): WorkspaceRecord | null {
    const row = this.select.get(key);
    if (!row || !(row.expires_at > now)) return null;
    const raw = row.value instanceof Uint8Array ? new TextDecoder().decode(row.value) : row.value;
    // A value that is not text (another program's) reads as an empty record, as it always has.
    return this.parsed.read(key, typeof raw === "string" ? raw : "");
  }

  private put(key: string, record: WorkspaceRecord, now: number): void {
    const text = writeRecord(record, this.codec);
    this.write.run(key, text, now + ttlOf(key, this.ttl));
    this.parsed.wrote(key, text, record);
  }

  /**
   * SQLite's own failures (a locked or unreadable file) become 503s; fn's errors pass through. A
   * file still locked is tried again for up to the busy timeout (whileBusy).
   */
  private guard<T>(work: () => T): T {
    try {
      return whileBusy(this.busyMs, work);
    } catch (err) {
      if (err instanceof AppError || !isSqliteError(err)) throw err;
      throw unavailable(`the record store at ${this.path} did not answer: ${err.message}`);
    }
  }
}

/**
 * Runs `work` again while SQLite says the file is locked, for up to `ms`. SQLite waits out its busy
 * timeout itself, except where waiting could deadlock (a read that must become a write, a switch of
 * journal mode): there it answers "database is locked" at once. Two servers starting on one new
 * file met that (a transaction that failed rolled back: running it again is safe).
 */
function whileBusy<T>(ms: number, work: () => T): T {
  const until = Date.now() + ms;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    try {
      return work();
    } catch (err) {
      if (!isSqliteError(err) || !/locked|busy/i.test(err.message) || Date.now() >= until) throw err;
      Bun.sleepSync(wait);
    }
  }
}

function isSqliteError(err: unknown): err is Error {
  return (
    err instanceof Error &&
    (err.name === "SQLiteError" || String((err as { code?: unknown }).code).startsWith("SQLITE_"))
  );
}
