// What a call left in its workspace's browser, for its timeline entry: the screen, sent for inside
// the call's turn and drawn after, and where a failed call left the page (URL and title).
import { SANDBOX } from "../grid/bidi.ts";
import { hideValues } from "../secrets/bound.ts";
import { type Reach, reach, SCREEN_MS, screenOf } from "./screens.ts";

/**
 * Sends for the screen of the workspace's browser now (the command is on its way when this
 * resolves); the picture, or null (none live, a typed secret, too slow), comes later. `counts`
 * (the timeline) adds it to the screens taken and their milliseconds.
 */
export async function sendScreen(
  reachable: Reach,
  workspace: string,
  counts: { screensTaken: number; screenMs: number },
): Promise<{ picture: Promise<Uint8Array | null> }> {
  const began = performance.now();
  const none = { picture: Promise.resolve(null) };
  let at: Awaited<ReturnType<typeof reach>> = null;
  try {
    at = await reach(reachable, workspace);
  } catch {
    return none;
  }
  if (!at) return none;
  const held = at;
  const picture = screenOf(held)
    .then(
      (jpeg) => {
        if (!(jpeg instanceof Uint8Array)) return null;
        counts.screensTaken++;
        return jpeg;
      },
      () => null,
    )
    .finally(() => {
      held.release();
      counts.screenMs += performance.now() - began;
    });
  return { picture };
}

/** Where a failed call left the page (the browser's URL, the page's title), when there is a browser. */
export async function pageNow(
  reachable: Reach,
  workspace: string,
  values: string[],
): Promise<{ url?: string; title?: string }> {
  let at: Awaited<ReturnType<typeof reach>> = null;
  try {
    at = await reach(reachable, workspace);
    if (!at) return {};
    const { socket, tab } = at;
    const [tree, title] = await Promise.all([
      socket.send("browsingContext.getTree", { root: tab, maxDepth: 0 }, { timeoutMs: SCREEN_MS }),
      socket
        .send(
          "script.callFunction",
          {
            functionDeclaration: "() => String(document.title)",
            target: { context: tab, sandbox: SANDBOX },
            awaitPromise: false,
            resultOwnership: "none",
          },
          { timeoutMs: 1_000 },
        )
        .then((r) => (r.type === "success" && typeof r.result.value === "string" ? r.result.value : ""))
        .catch(() => ""),
    ]);
    const url = tree.contexts[0]?.url;
    return url ? { url: hideValues(values, url), title: hideValues(values, title) } : {};
  } catch {
    return {};
  } finally {
    at?.release();
  }
}
