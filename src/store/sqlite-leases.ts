// Leases, their queue, MCP sessions and marks in SQLite: the statements, and the transactions that take them.
import type { Database } from "bun:sqlite";
import type { WorkspaceRecord } from "./record.ts";
import type { Granted, McpOpened } from "./types.ts";

/** The statements behind leases, MCP sessions and marks. */
export function leaseStatements(db: Database) {
  return {
    lease: db.query<{ token: number; expires_at: number }, [string]>(
      "SELECT token, expires_at FROM leases WHERE name = ?",
    ),
    grant: db.query<unknown, [string, number, number]>(
      "INSERT INTO leases (name, token, expires_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at",
    ),
    renew: db.query<unknown, [number, string, number, number]>(
      "UPDATE leases SET expires_at = ? WHERE name = ? AND token = ? AND expires_at > ?",
    ),
    release: db.query<unknown, [string, number]>("DELETE FROM leases WHERE name = ? AND token = ?"),
    breakOne: db.query<unknown, [string]>("DELETE FROM leases WHERE name = ?"),
    next: db.query<{ n: number }, []>(
      "INSERT INTO counters (name, n) VALUES ('lease', 1) ON CONFLICT (name) DO UPDATE SET n = n + 1 RETURNING n",
    ),
    dropStale: db.query<unknown, [string, number, string]>(
      "DELETE FROM lease_queue WHERE name = ? AND expires_at <= ? AND ticket != ?",
    ),
    head: db.query<{ ticket: string }, [string]>(
      "SELECT ticket FROM lease_queue WHERE name = ? ORDER BY seq LIMIT 1",
    ),
    inLine: db.query<{ seq: number }, [string, string]>(
      "SELECT seq FROM lease_queue WHERE name = ? AND ticket = ?",
    ),
    joinLine: db.query<unknown, [string, string, number, number]>(
      "INSERT INTO lease_queue (name, ticket, seq, expires_at) VALUES (?, ?, ?, ?)",
    ),
    stayInLine: db.query<unknown, [number, string, string]>(
      "UPDATE lease_queue SET expires_at = ? WHERE name = ? AND ticket = ?",
    ),
    leaveLine: db.query<unknown, [string, string]>("DELETE FROM lease_queue WHERE name = ? AND ticket = ?"),
    mcp: db.query<{ info: string; expires_at: number }, [string]>(
      "SELECT info, expires_at FROM mcp_sessions WHERE id = ?",
    ),
    putMcp: db.query<unknown, [string, string, number, number]>(
      "INSERT INTO mcp_sessions (id, info, expires_at, used_at) VALUES (?, ?, ?, ?)",
    ),
    // One statement: a touch is a call's only write of its own.
    touchMcp: db.query<{ info: string }, [number, number, number, number, string | null, string, number]>(
      "UPDATE mcp_sessions SET expires_at = ?, used_at = CASE WHEN ? THEN ? ELSE used_at END, held_until = max(held_until, ?), info = coalesce(?, info) WHERE id = ? AND expires_at > ? RETURNING info",
    ),
    dropMcp: db.query<unknown, [string]>("DELETE FROM mcp_sessions WHERE id = ?"),
    purgeMcp: db.query<unknown, [number]>("DELETE FROM mcp_sessions WHERE expires_at <= ?"),
    countMcp: db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM mcp_sessions"),
    leastUsedMcp: db.query<{ id: string }, [number, number]>(
      "SELECT id FROM mcp_sessions WHERE held_until <= ? ORDER BY used_at LIMIT ?",
    ),
    mark: db.query<{ expires_at: number }, [string]>("SELECT expires_at FROM marks WHERE name = ?"),
    putMark: db.query<unknown, [string, number]>(
      "INSERT INTO marks (name, expires_at) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET expires_at = excluded.expires_at",
    ),
    purgeMarks: db.query<unknown, [number]>("DELETE FROM marks WHERE expires_at <= ?"),
  };
}

export type LeaseStatements = ReturnType<typeof leaseStatements>;

/**
 * The read-then-write steps of leases and MCP sessions, each one IMMEDIATE transaction; `read` is the
 * record under a key at a time (a lease taken reading its workspace's record).
 */
export function leaseTransactions(
  db: Database,
  ops: LeaseStatements,
  clock: () => number,
  read: (key: string, now: number) => WorkspaceRecord | null,
) {
  const take = (name: string, ticket: string, ms: number): number | null => {
    const now = clock();
    ops.dropStale.run(name, now, ticket);
    const lease = ops.lease.get(name);
    const head = ops.head.get(name);
    if ((lease && lease.expires_at > now) || (head && head.ticket !== ticket)) {
      if (ops.inLine.get(name, ticket)) ops.stayInLine.run(now + ms / 1000, name, ticket);
      else ops.joinLine.run(name, ticket, ops.next.get()!.n, now + ms / 1000);
      return null;
    }
    ops.leaveLine.run(name, ticket);
    const token = ops.next.get()!.n;
    ops.grant.run(name, token, now + ms / 1000);
    return token;
  };
  return {
    take: db.transaction(take).immediate,
    takeReading: db.transaction((name: string, ticket: string, ms: number): Granted | null => {
      const token = take(name, ticket, ms);
      return token === null ? null : { token, record: read(name, clock()) };
    }).immediate,
    openMcp: db.transaction(
      (id: string, info: string, seconds: number, max: number, busy: readonly string[]): McpOpened => {
        const now = clock();
        ops.purgeMcp.run(now);
        let evicted: string | null = null;
        if (ops.countMcp.get()!.n >= max) {
          // The least recently used that nothing holds: a call in flight here (busy) or anywhere (kept).
          const idle = ops.leastUsedMcp.all(now, busy.length + 1).find((r) => !busy.includes(r.id));
          if (!idle) return { opened: false, evicted: null };
          ops.dropMcp.run(idle.id);
          evicted = idle.id;
        }
        ops.putMcp.run(id, info, now + seconds, now);
        return { opened: true, evicted };
      },
    ).immediate,
  };
}
