// The one check of whether a browser's documents hold a typed secret, for everything that must not
// picture or read one: execute_script (every tab), screenshot, print_page, the timeline's and the
// live view's screens (one tab). A document holds one when a bound write marked it in the sandbox
// (the page cannot reach the mark), or when it is of an origin a secret was typed on in this browser
// and a field holds a value its markup did not give it: Chrome's form restoration (Back onto a page
// the back/forward cache did not keep) puts a typed value into a new, unmarked document. Fails closed.
import { type BidiSocket, SANDBOX } from "../grid/bidi.ts";
import type { EvaluateResult } from "../grid/bidi-types.ts";
import { typedIn, typedOrigins } from "../pieces.ts";

const CALL_MS = 10_000;

/**
 * In the sandbox, given the browser's typed origins: the fields of an unmarked document of one of
 * them that hold a value the markup did not give (what a restoration put there).
 */
export const RESTORED = `((origins) => {
  if (globalThis.__sfTyped === true || !origins.includes(String(self.origin))) return [];
  return [...document.querySelectorAll("input, textarea")].filter((el) =>
    !/^(hidden|checkbox|radio|button|submit|reset|image|file|range|color)$/i.test(el.type || "") &&
    el.value !== "" && el.value !== el.defaultValue);
})`;

const HOLDS = `function (origins) { return globalThis.__sfTyped === true || ${RESTORED}(origins).length > 0; }`;

/** `declaration` called with the browser's typed origins in `context`'s sandbox; null when it would not answer. */
export function withOrigins(
  socket: BidiSocket,
  context: string,
  declaration: string,
  origins: string[],
  timeoutMs = CALL_MS,
): Promise<EvaluateResult | null> {
  return socket
    .send(
      "script.callFunction",
      {
        functionDeclaration: declaration,
        target: { context, sandbox: SANDBOX },
        arguments: [{ type: "array", value: origins.map((value) => ({ type: "string", value })) }],
        awaitPromise: false,
        resultOwnership: "none",
      },
      { timeoutMs },
    )
    .catch(() => null);
}

type Tree = { context: string; children?: unknown[] | null };

/** Every document under `root` (a tab), or of the whole browser without one, as the browser tells it. */
export async function contextsOf(socket: BidiSocket, root?: string, timeoutMs = CALL_MS): Promise<string[]> {
  const tree = await socket.send("browsingContext.getTree", root ? { root } : {}, { timeoutMs });
  const out: string[] = [];
  const walk = (c: Tree) => {
    out.push(c.context);
    for (const child of (c.children ?? []) as Tree[]) walk(child);
  };
  for (const c of tree.contexts) walk(c);
  return out;
}

/**
 * Whether a document of `browser` (of its tab `tab` only, when given) holds a typed secret; true
 * when any document would not say, or the browser's tree cannot be read. `alone`: this server is
 * the only one that could have typed in the browser (no shared store), so a browser where it typed
 * nothing pays nothing: no round trip, no refusal (a frame that never answers, as a `javascript:`
 * frame under `script-src 'none'`, cannot hold what was never typed).
 */
export async function holdsTyped(
  at: { socket: BidiSocket; browser: string; tab?: string; alone?: boolean },
  timeoutMs = CALL_MS,
): Promise<boolean> {
  if (at.alone && !typedIn(at.browser)) return false;
  const origins = typedOrigins(at.browser);
  try {
    const contexts = await contextsOf(at.socket, at.tab, timeoutMs);
    const marks = await Promise.all(
      contexts.map((context) =>
        withOrigins(at.socket, context, HOLDS, origins, timeoutMs).then(
          (r) => r?.type !== "success" || r.result.value !== false,
        ),
      ),
    );
    return marks.some(Boolean);
  } catch {
    return true;
  }
}
