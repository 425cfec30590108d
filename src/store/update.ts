// A record write that also answers what its fn learned from the record as it was at write time.
import type { WorkspaceRecord } from "./record.ts";
import type { RecordStore, UpdateOptions } from "./types.ts";

/** The record to write (as an UpdateFn returns it) and a value for the caller. */
export interface Updated<T> {
  record: WorkspaceRecord | null;
  value: T;
}

/**
 * `store.update` with a value beside the record: fn returns both, so nothing leaves it through a
 * variable of the caller's. fn may run more than once (Redis retries it): the value is the last
 * run's, the one whose record was written.
 */
export async function updateWith<T>(
  store: Pick<RecordStore, "update">,
  key: string,
  fn: (current: WorkspaceRecord | null) => Updated<T>,
  opts?: UpdateOptions,
): Promise<Updated<T>> {
  let last: { value: T } | null = null;
  const record = await store.update(
    key,
    (current) => {
      const out = fn(current);
      last = { value: out.value };
      return out.record;
    },
    opts,
  );
  // Every store runs fn at least once before it resolves.
  if (!last) throw new Error(`the store did not run the update of ${key}`);
  return { record, value: (last as { value: T }).value };
}
