// A read or a change of the admin's as its JSON route would answer it, kept for a page to draw.
import { errorBody, statusOf } from "../errors.ts";
import type { Log } from "../log.ts";

/** What a read or a change answered: its result, or the failure's status and message. */
export type Answer<T = unknown> =
  | { ok: true; status: 200; body: T; error: "" }
  | { ok: false; status: number; body: null; error: string };

/** `fn`'s answer, or its failure as the JSON route would give it (a 5xx logged like one). */
export async function attempt<T>(log: Log, fn: () => Promise<T> | T): Promise<Answer<T>> {
  try {
    return { ok: true, status: 200, body: await fn(), error: "" };
  } catch (err) {
    const status = statusOf(err);
    const { error } = errorBody(err);
    if (status >= 500) log.error(`request failed: ${error}`);
    return { ok: false, status, body: null, error };
  }
}
