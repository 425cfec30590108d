// What a call left in its workspace's browser, for its timeline entry: the screen, sent for inside
// the call's turn and drawn after, and where a failed call left the page (URL and title). Both read
// the browser the call was handed back (the manager's after-hook); a call that never had its turn
// is read through `reach`.
import type { LiveBrowser } from "../actions/action.ts";
import { remoteValue, SANDBOX } from "../grid/bidi.ts";
import { callScript } from "../grid/page-call.ts";
import { docTitle } from "../in-page/standalone.ts";
import { type Reach, reach, SCREEN_MS, screenOf } from "./screens.ts";

const TITLE = String(docTitle);

/**
 * Sends for the screen of the call's browser now (the command is on its way when this resolves);
 * the picture, or null (a typed secret, too slow, gone), comes later. `counts` (the timeline) adds
 * it to the screens taken and their milliseconds.
 */
export async function sendScreen(
  browser: LiveBrowser,
  counts: { screensTaken: number; screenMs: number },
): Promise<{ picture: Promise<Uint8Array | null> }> {
  const began = performance.now();
  const page = await browser.page();
  const held = page.held;
  // The connection stays in use until the picture is in, after the call gave its browser back.
  const release = held.use();
  const picture = screenOf({ held, tab: page.where.tab })
    .then(
      (jpeg) => {
        if (!(jpeg instanceof Uint8Array)) return null;
        counts.screensTaken++;
        return jpeg;
      },
      () => null,
    )
    .finally(() => {
      release();
      counts.screenMs += performance.now() - began;
    });
  return { picture };
}

type Socket = Awaited<ReturnType<LiveBrowser["bidi"]>>;

/**
 * The tab's URL and title as the page says them (the entry redacts them); {} when it cannot tell. A tab held by a
 * dialog (`prompted`) runs no script until it is answered: its title is not asked for (it would
 * cost every failed call meanwhile the title's whole timeout).
 */
async function where(
  socket: Socket,
  tab: string,
  prompted: boolean,
): Promise<{ url?: string; title?: string }> {
  const [tree, title] = await Promise.all([
    socket.send("browsingContext.getTree", { root: tab, maxDepth: 0 }, { timeoutMs: SCREEN_MS }),
    prompted
      ? ""
      : callScript(
          socket,
          {
            functionDeclaration: TITLE,
            target: { context: tab, sandbox: SANDBOX },
            awaitPromise: false,
            resultOwnership: "none",
          },
          { timeoutMs: 1_000 },
        )
          .then((r) => {
            const v = r.type === "success" ? remoteValue(r.result) : "";
            return typeof v === "string" ? v : "";
          })
          .catch(() => ""),
  ]);
  const url = tree.contexts[0]?.url;
  return url ? { url, title } : {};
}

/** Where a failed call left the page of the browser it was handed back. */
export async function pageOf(browser: LiveBrowser): Promise<{ url?: string; title?: string }> {
  try {
    const page = await browser.page();
    return await where(page.held.socket, page.where.tab, page.held.prompts.has(page.where.tab));
  } catch {
    return {};
  }
}

/** Where the workspace's browser is now, for a failed call that never had its turn (refused, or waited out). */
export async function pageNow(
  reachable: Reach,
  workspace: string,
): Promise<{ url?: string; title?: string }> {
  let at: Awaited<ReturnType<typeof reach>> = null;
  try {
    at = await reach(reachable, workspace);
    return at ? await where(at.socket, at.tab, at.held.prompts?.has(at.tab) === true) : {};
  } catch {
    return {};
  } finally {
    at?.release();
  }
}
