// The shapes a sandbox call hands back (node and window refs), and the one door for a script of the
// server's that goes to a page without the library (a standalone page function, a preload script).

import type { PageFn } from "../in-page/index.ts";
import type { BidiSocket, Params, Result } from "./bidi.ts";

/** An element (or any node) the sandbox handed over, good for its document only. */
export interface NodeRef {
  readonly sharedId: string;
  /** The browsing context whose document holds it. */
  readonly context: string;
}
/** A window (a frame's) the sandbox handed over. */
export interface WindowRef {
  readonly window: string;
}

export type { PageFn };

/** What sends a command: a held connection's socket, a spare tab's, or a `Page` (its failures said). */
type Sender = Pick<BidiSocket, "send">;

/**
 * A script of the server's own sent to a page without the library: a standalone page function of
 * src/in-page/ (`String(fn)`), or text put together from them (a spare tab's visit). With the
 * library's calls (`PagePort`, whose declaration is made above) and `addPreload`, the only way a
 * script of the server's goes to a page.
 */
export function callScript(
  via: Sender,
  params: Params<"script.callFunction">,
  opts?: { timeoutMs?: number },
): Promise<Result<"script.callFunction">> {
  return via.send("script.callFunction", params, opts);
}

/** A script run in every new document of `params.contexts` (or of all), before the page's own. */
export function addPreload(
  via: Sender,
  params: Params<"script.addPreloadScript">,
  opts?: { timeoutMs?: number },
): Promise<Result<"script.addPreloadScript">> {
  return via.send("script.addPreloadScript", params, opts);
}
