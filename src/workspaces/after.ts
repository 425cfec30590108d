// What runs as a call ends: one hook, declared when the manager is built (the timeline's screen),
// handed the browser the call leaves; what it says goes back with the call's outcome, never through
// a closure the caller passed down.
import type { AnyAction, LiveBrowser } from "../actions/action.ts";
import type { Held } from "./browsers.ts";

/** How a call ended, with what its after-hook said (none when the call never had its turn). */
export type Ended<T> =
  | { ok: true; result: Record<string, unknown>; after: T | undefined }
  | { ok: false; error: unknown; after: T | undefined };

/** A call as it ends, still in its turn. */
export interface CallEnd {
  workspace: string;
  action: AnyAction;
  failed: boolean;
  /** The browser the call leaves (the workspace's, for a call that held none); null when none is live. */
  browser: LiveBrowser | null;
}

/** Runs as each call ends (done or failed), in its turn; what it answers comes back with the call. */
export type AfterHook<T> = (end: CallEnd) => Promise<T>;

/**
 * Runs the hook for a call that held `held` (null: none, as an open, end or refused call): then the
 * workspace's browser now, if the action uses one. A hook that fails says nothing.
 */
export async function afterCall<T>(
  hook: AfterHook<T> | undefined,
  lifecycle: { held(workspace: string): Promise<Held | null> },
  end: Omit<CallEnd, "browser">,
  held: Held | null,
): Promise<T | undefined> {
  if (!hook) return undefined;
  let own: Held | null = null;
  try {
    if (!held && end.action.browser !== "none") own = await lifecycle.held(end.workspace);
    return await hook({ ...end, browser: held ?? own });
  } catch {
    return undefined;
  } finally {
    own?.release();
  }
}
