import type { WorkspaceRecord } from "./record.ts";

/**
 * Computes the new record from the record as it is at write time (or null when there is none).
 * Synchronous and pure: it may run more than once (Redis retries it). Returning null leaves the
 * record alone and writes nothing; returning the same record still writes and slides the TTL.
 */
export type UpdateFn = (current: WorkspaceRecord | null) => WorkspaceRecord | null;

/** A lease as its holder knows it: the name and the fencing token the store gave it. */
export interface LeaseFence {
  name: string;
  token: number;
}

/** A lease granted with the record under its name, read in the same atomic step. */
export interface Granted {
  token: number;
  record: WorkspaceRecord | null;
}

export interface UpdateOptions {
  /**
   * Writes only while this lease is still held with this token, checked in the same atomic step
   * as the write; otherwise nothing is written and the update throws LeaseLost.
   */
  fence?: LeaseFence;
}

export interface RecordStore {
  readonly kind: "sqlite" | "redis";
  /** Seconds a record lives after its last write. */
  readonly ttl: number;
  get(key: string): Promise<WorkspaceRecord | null>;
  set(key: string, record: WorkspaceRecord): Promise<void>;
  /** Atomic per key. Resolves to the record as stored afterwards (null when there is none). */
  update(key: string, fn: UpdateFn, opts?: UpdateOptions): Promise<WorkspaceRecord | null>;
  delete(key: string): Promise<boolean>;
  /** Every live key. */
  keys(): Promise<string[]>;

  /**
   * Leases: one holder at a time per name, across every server of the store, for `ms` unless
   * renewed. A taker joins the name's queue under `ticket` (kept while it keeps asking, at least
   * every `ms`) and gets the lease only when it is free and the ticket is first in line, so takers
   * are served in the order they came. Resolves to the fencing token (greater than every token
   * given before it), or null while another holds the lease or is ahead in line.
   */
  takeLease(name: string, ticket: string, ms: number): Promise<number | null>;
  /** `takeLease` for a workspace's call: a grant comes with its record, read in the same atomic step. */
  takeLeaseReading(name: string, ticket: string, ms: number): Promise<Granted | null>;
  /** Extends the lease to `ms` from now while `token` holds it; false when it no longer does. */
  renewLease(name: string, token: number, ms: number): Promise<boolean>;
  /** Gives the lease back, if `token` still holds it. */
  releaseLease(name: string, token: number): Promise<void>;
  /** Ends whoever holds the lease now (an admin's End): their fenced writes fail from here on. */
  breakLease(name: string): Promise<void>;
  /** Leaves the queue without the lease (a taker that gave up). */
  leaveLeaseQueue(name: string, ticket: string): Promise<void>;
  /**
   * Calls `listener` with a lease's name whenever any server gives it back or breaks it, so a
   * waiter on another server goes at once rather than at its next look (Redis: a published
   * message). Stores without a way to say so leave it out: waiters look again on their own.
   * Returns the way to stop listening.
   */
  watchLeases?(listener: (name: string) => void): () => void;
  /**
   * Tells every server of the group that something about `name` changed that a waiter may be after
   * (a question answered, taken or cancelled), so it looks at once rather than at its next look
   * (Redis: a published message). Stores without a way to say so leave both out.
   */
  nudge?(name: string): Promise<void>;
  /** Calls `listener` with each name nudged, by any server. Returns the way to stop listening. */
  watchNudges?(listener: (name: string) => void): () => void;

  /**
   * MCP sessions over HTTP, kept here so any server of a group serves any of them: opens `id`
   * holding `info` (what the session is: its workspace, its spec version), unused for at most
   * `seconds`. With `max` open, the least recently used one that no call keeps (a long call anywhere, or in `busy`:
   * the caller's own calls in flight) is closed to make room, and named; when every one is kept,
   * nothing opens.
   */
  openMcpSession(
    id: string,
    info: string,
    seconds: number,
    max: number,
    busy?: readonly string[],
  ): Promise<McpOpened>;
  /** The session's info, its idle time restarted (see McpTouch); null when it is closed or idle too long. */
  mcpSession(id: string, seconds: number, touch?: McpTouch): Promise<string | null>;
  /** True when the session was open. */
  closeMcpSession(id: string): Promise<boolean>;

  /** A flag any server can raise and see for `seconds` (an MCP cancel for a call on another server). */
  putMark(name: string, seconds: number): Promise<void>;
  hasMark(name: string): Promise<boolean>;

  /**
   * Admin sign-ins, kept beside the records (never among their keys) so every server of a group
   * honours them: `id` is a digest of the cookie's sign-in id, and it lives `seconds`.
   */
  putSignIn(id: string, seconds: number): Promise<void>;
  /** Whether the sign-in `id` is there and unexpired. */
  hasSignIn(id: string): Promise<boolean>;
  dropSignIn(id: string): Promise<void>;
  /** True when the store answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** What opening an MCP session did: opened it, and which idle one it closed to make room. */
export interface McpOpened {
  opened: boolean;
  evicted: string | null;
}

/**
 * How an MCP session is touched: `use` (default true) makes it the most recently used; `keep` keeps
 * it from eviction that many seconds (a long call); `info` is what it is from now on (its log level
 * chosen), written in the same touch.
 */
export interface McpTouch {
  use?: boolean;
  keep?: number;
  info?: string;
}
