import type { WorkspaceRecord } from "./record.ts";

/**
 * Computes the new record from the record as it is at write time (or null when there is none).
 * Synchronous and pure: it may run more than once (Redis retries it). Returning null leaves the
 * record alone and writes nothing; returning the same record still writes and slides the TTL.
 */
export type UpdateFn = (current: WorkspaceRecord | null) => WorkspaceRecord | null;

export interface RecordStore {
  readonly kind: "sqlite" | "redis";
  /** Seconds a record lives after its last write. */
  readonly ttl: number;
  get(key: string): Promise<WorkspaceRecord | null>;
  set(key: string, record: WorkspaceRecord): Promise<void>;
  /** Atomic per key. Resolves to the record as stored afterwards (null when there is none). */
  update(key: string, fn: UpdateFn): Promise<WorkspaceRecord | null>;
  delete(key: string): Promise<boolean>;
  /** Every live key. */
  keys(): Promise<string[]>;
  /** Seconds until the key expires, or null when it does not exist. */
  expiresIn(key: string): Promise<number | null>;
  /**
   * Admin sign-ins, kept beside the records (never among their keys) so every server of a group
   * honours them: `id` is a digest of the cookie's session id, and it lives `seconds`.
   */
  putSession(id: string, seconds: number): Promise<void>;
  /** Whether the sign-in `id` is there and unexpired. */
  hasSession(id: string): Promise<boolean>;
  dropSession(id: string): Promise<void>;
  /** True when the store answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
