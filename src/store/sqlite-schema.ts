// The SQLite file: its tables, and the owner-only mode the file and its WAL and SHM are kept in.
import type { Database } from "bun:sqlite";
import { chmodSync, closeSync, openSync } from "node:fs";

/** Creates the store's tables where they are missing. */
export function createTables(db: Database): void {
  db.run(
    "CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at REAL NOT NULL)",
  );
  db.run("CREATE TABLE IF NOT EXISTS admin_sessions (id TEXT PRIMARY KEY, expires_at REAL NOT NULL)");
  db.run(
    "CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, token INTEGER NOT NULL, expires_at REAL NOT NULL)",
  );
  db.run(
    "CREATE TABLE IF NOT EXISTS lease_queue (name TEXT NOT NULL, ticket TEXT NOT NULL, seq INTEGER NOT NULL, expires_at REAL NOT NULL, PRIMARY KEY (name, ticket))",
  );
  db.run("CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, n INTEGER NOT NULL)");
  // MCP sessions are short-lived: a table of an older shape (no used_at) is dropped, not migrated.
  const columns = db.query<{ name: string }, []>("PRAGMA table_info(mcp_sessions)").all();
  if (columns.length && !columns.some((c) => c.name === "used_at")) db.run("DROP TABLE mcp_sessions");
  db.run(
    "CREATE TABLE IF NOT EXISTS mcp_sessions (id TEXT PRIMARY KEY, info TEXT NOT NULL, expires_at REAL NOT NULL, used_at REAL NOT NULL, held_until REAL NOT NULL DEFAULT 0)",
  );
  db.run("CREATE INDEX IF NOT EXISTS mcp_sessions_used ON mcp_sessions (used_at)");
  db.run("CREATE TABLE IF NOT EXISTS marks (name TEXT PRIMARY KEY, expires_at REAL NOT NULL)");
}

/** Makes `path` (created when `create`) readable and writable by this user alone; never throws for it. */
export function ownerOnly(path: string, create = true): void {
  try {
    if (create) closeSync(openSync(path, "a", 0o600));
    chmodSync(path, 0o600);
  } catch {
    // Not ours to change (another user's file, a read-only mount): SQLite says what it can do.
  }
}
