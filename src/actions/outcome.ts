// What a handler did beyond its result: the manager applies it once, in the call's settle write,
// after the handler answered. A handler with nothing more to say returns its result alone.
import type { WorkspaceRecord } from "../store/record.ts";

type AnyRecord = Record<string, unknown>;

/** A pure change to the record, applied inside the settle write (may run more than once). */
export type RecordChange = (record: WorkspaceRecord, browser: string) => WorkspaceRecord | null | Patched;

/**
 * A change's record, and a patch for the call's result: applied once the write is in, and only when
 * the write's last run applied the change (a change the write did not apply leaves the result as
 * the handler made it).
 */
export interface Patched {
  record: WorkspaceRecord;
  patch: (result: Record<string, unknown>) => Record<string, unknown>;
}

export function isPatched(out: WorkspaceRecord | Patched | null): out is Patched {
  return out !== null && typeof (out as Partial<Patched>).patch === "function";
}

export interface Happened {
  /** The page to record instead of the result's url; null records none (a frame, a closed tab, a dialog). */
  landed?: string | null;
  /** Several pages to record, in order (a flow run's), instead of one landing. */
  pages?: ReadonlyArray<string | null>;
  /** Pure changes to the record, for the same settle write. */
  changes?: readonly RecordChange[];
}

export class Outcome<T> {
  constructor(
    readonly result: T,
    readonly happened: Happened,
  ) {}

  /** The same happenings beside another result (built from this one's). */
  map<U>(fn: (result: T) => U): Outcome<U> {
    return new Outcome(fn(this.result), this.happened);
  }
}

/** `result`, and what else happened. */
export function outcome<T>(result: T, happened: Happened): Outcome<T> {
  return new Outcome(result, happened);
}

/** A handler's answer taken apart: its result, and what happened (nothing, for a bare result). */
export function split(out: unknown): { result: AnyRecord; happened: Happened } {
  if (out instanceof Outcome) return { result: out.result as AnyRecord, happened: out.happened };
  return { result: out as AnyRecord, happened: {} };
}
