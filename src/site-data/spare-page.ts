// The spare page: the marked blank page a spare tab stands on (the server's own answer to a request
// for SPARE_PATH on any origin), the frames of other origins it may hold, and the scripts a visit
// runs there. spare-tab.ts moves tabs between such pages.

import { type BidiSocket, remoteValue, SANDBOX } from "../grid/bidi.ts";
import { SPARE_PATH } from "../grid/net-rules.ts";
import { callScript } from "../grid/page-call.ts";
import { firstParty, onMarkedPage } from "../in-page/standalone.ts";

export const SPARE_MARKER = "selenium-flow-spare";
/** The smallest document that says it is ours: nothing to fetch, nothing to run. */
export const SPARE_PAGE = `<meta name=${SPARE_MARKER}>`;
export const SW_REASON = "a service worker answered: save while on this site";
/**
 * Origins one spare page visits at most: its own, and the rest each in a frame of it. A frame whose
 * storage is its site's own (same-site with the page: the browser says, see `firstParty`) is read
 * or written there, side by side; any other goes back to the pool for a page of its own.
 */
export const FRAMES_PER_PAGE = 8;
/** How long a visit waits for its page's frames to be parsed; one not parsed by then gets a page of its own. */
export const FRAME_WAIT_MS = 3_000;

/** An http(s) origin as the URL parser writes it, and safe in an HTML attribute, or null. */
function webOrigin(o: string): string | null {
  // The parser lets a quote through in a host name; no real one has one.
  if (/["'<>&`\s]/.test(o)) return null;
  try {
    const u = new URL(o);
    return /^https?:$/.test(u.protocol) && u.origin === o ? u.origin : null;
  } catch {
    return null;
  }
}

/** The marked page's url on `origin`, holding each of `frames` (origins) in a frame of its own. */
export function spareUrl(origin: string, frames: readonly string[] = []): string {
  const query = frames.map((f) => `f=${encodeURIComponent(f)}`).join("&");
  return origin + SPARE_PATH + (query ? `?${query}` : "");
}

/** The origins a spare page's url asks frames for (only ever the server's own urls). */
export function framesOf(url: string): string[] {
  try {
    const u = new URL(url);
    if (u.pathname !== SPARE_PATH) return [];
    return u.searchParams.getAll("f").flatMap((f) => webOrigin(f) ?? []);
  } catch {
    return [];
  }
}

/** What a spare page's request is answered with: the marker, and the frames its url asks for. */
export function sparePage(url: string): string {
  return (
    SPARE_PAGE +
    framesOf(url)
      .map((o) => `<iframe src="${o}${SPARE_PATH}"></iframe>`)
      .join("")
  );
}

/** What the spare tab needs of a BiDi socket (a fake one in unit tests). */
export type SpareBidi = Pick<BidiSocket, "send" | "on" | "subscribe" | "unsubscribe" | "logger">;

/** An origin visited in a frame of a spare page: `fn` run there, given `arg`. */
export interface FrameJob {
  origin: string;
  fn: string;
  arg?: string;
}

/** A frame's visit: its value, or not done there (the origin wants a page of its own). */
export type FrameResult = { ok: true; value: unknown } | { ok: false };

/**
 * One sandbox call per visit: the marker check, the origin check, `check` and `fn`, as a JSON
 * string that says whose page it was; then, when `next` names the next page, the move there (a
 * round trip saved on every visit but the first). Checking the origin in the page too means a tab
 * that did not move never takes a write. The text is the same for every origin, so the browser
 * compiles it once.
 */
function visitScript(fn: string, check = ""): string {
  return (
    `async (origin, arg, next) => { const at = (${String(onMarkedPage)})(${JSON.stringify(SPARE_MARKER)}); ` +
    `if (!at.spare || at.origin !== origin) return JSON.stringify(at); ${check}` +
    `const out = JSON.stringify({ spare: true, origin, value: await (${fn})(arg) }); ` +
    "if (next) location.replace(next); return out; }"
  );
}

/** A visit's call on the tab's page. */
export const onSpare = (fn: string): string => visitScript(fn);

/** A visit's call in a frame: `fn` runs only where the frame's storage is its site's own. */
export const onSpareFrame = (fn: string): string =>
  visitScript(
    fn,
    `if (!(${String(firstParty)})()) return JSON.stringify({ spare: true, origin, partitioned: true }); `,
  );

/**
 * Whether a browser's spare pages hold frames: Chrome's only (its frames' storage follows the
 * SameSite rule `firstParty` reads; Firefox's is not checked here). No browser named is Chrome, the default.
 */
export const framesIn = (browser: string | undefined): boolean => (browser ?? "chrome") === "chrome";

/**
 * Runs each frame job in its frame of the tab's page as soon as that frame's page is parsed
 * (`contexts`, by the frame's url), side by side. A frame that is not there, not ours, on another
 * origin, not its site's own storage, or whose call failed is not done: its origin wants a page of its own.
 */
export async function inFrames(
  bidi: SpareBidi,
  contexts: ReadonlyMap<string, Promise<string | null>>,
  frames: readonly FrameJob[],
): Promise<FrameResult[]> {
  return Promise.all(
    frames.map(async ({ origin, fn, arg = "" }): Promise<FrameResult> => {
      const frame = await contexts.get(origin + SPARE_PATH);
      if (!frame) return { ok: false };
      try {
        const reply = await callScript(bidi, {
          functionDeclaration: onSpareFrame(fn),
          target: { context: frame, sandbox: SANDBOX },
          arguments: [
            { type: "string", value: origin },
            { type: "string", value: arg },
          ],
          awaitPromise: true,
          resultOwnership: "none",
        });
        if (reply.type !== "success") return { ok: false };
        const got = JSON.parse(String(remoteValue(reply.result))) as {
          spare?: boolean;
          origin?: string;
          partitioned?: boolean;
          value?: unknown;
        };
        // A value of undefined leaves no key in the JSON: the page and the check say it ran.
        return got.spare && got.origin === origin && !got.partitioned
          ? { ok: true, value: got.value }
          : { ok: false };
      } catch {
        return { ok: false };
      }
    }),
  );
}
