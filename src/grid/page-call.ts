// A sandbox call put together and read back, for the page port (its declaration, its packed
// arguments, the node and window refs it hands back: pure), and the one door for a script of the
// server's that goes to a page without the library (a standalone page function, a preload script).

import type { BrowsingContext, Script } from "webdriver-bidi-protocol";
import { pageLibrary } from "../in-page/bundle.ts" with { type: "macro" };
import type { PageFn } from "../in-page/index.ts";
import type { BidiSocket, Params, Result } from "./bidi.ts";
import type { NavPolicy } from "./policy.ts";

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

/** What a page port is told of its browser. */
export interface PageOptions {
  /** How long a page may take to load (the browser's page_load_timeout). */
  pageLoadMs: number;
  /** How long a script of the caller's may run (script_timeout). */
  scriptMs: number;
  /** The URL schemes a page may be loaded from (navigate.allow_schemes); the default when unset. */
  schemes?: string[];
  /** The navigation policy this browser follows (none: any host). */
  policy?: NavPolicy;
  /** Whether the browser is gone (the Grid reaped it); asked when the connection fails. */
  gone: () => Promise<boolean>;
}

/** A command's deadline, and whether a dialog in the agent's tab ends it (see PagePort.send). */
export interface SendOpts {
  timeoutMs?: number;
  endsOnDialog?: boolean;
}

/** The url of `context`'s document in the tab's tree, or null when it is not there. */
export function urlIn(tree: BrowsingContext.Info, context: string): string | null {
  if (tree.context === context) return tree.url;
  for (const child of tree.children ?? []) {
    const found = urlIn(child, context);
    if (found !== null) return found;
  }
  return null;
}

/** Where the page is after a gesture (see PagePort.landing). */
export interface Landing {
  top: BrowsingContext.Info | null;
  seen: { leaving: "maybe" | null; title: string } | null;
}

/** The context a script or input command goes to (its document must answer, not just the browser). */
export function targetOf(method: string, params: unknown): string | null {
  if (!/^(script|input)\./.test(method)) return null;
  const p = params as { context?: unknown; target?: { context?: unknown } };
  const c = p.context ?? p.target?.context;
  return typeof c === "string" ? c : null;
}

/** The page library (src/in-page/), bundled into one string at build time. */
export const LIBRARY: string = pageLibrary();

export function isNodeRef(v: unknown): v is NodeRef {
  return typeof v === "object" && v !== null && typeof (v as NodeRef).sharedId === "string";
}

export const NO_LIBRARY = "__sf:no-library";

// The call unpacks its arguments, runs the library's function `__fn` and packs what it returns, all
// in the sandbox: every function run there is the library's (src/in-page/), called by its name. The
// library is there already in any document loaded since the connection was held (its preload script
// put it there); the lean form says when it is not, and the whole form brings it.
const call = (install: string) => `async function (__fn, __args, __arm, ...__refs) {
${install}
const L = globalThis.__sfLib; L.fresh(); if (__arm) L.arm();
return L.pack(await L[__fn](...L.unpack(__args, __refs)));
}`;
const LEAN = call(`if (!globalThis.__sfLib?.[__fn]) return "${NO_LIBRARY}";`);
const WHOLE = call(`if (!globalThis.__sfLib?.[__fn]) { ${LIBRARY} }`);

export function declaration(withLibrary: boolean): string {
  return withLibrary ? WHOLE : LEAN;
}

/** Arguments as the sandbox takes them: the function's name, one JSON string, whether to arm, and the node refs it points at. */
export function packArgs(fn: PageFn, args: unknown[], arm: boolean): Script.LocalValue[] {
  const refs: Script.LocalValue[] = [];
  const json = JSON.stringify(args, (_k, v: unknown) => {
    if (isNodeRef(v)) {
      refs.push({ sharedId: v.sharedId });
      return { $sf: refs.length - 1 };
    }
    return v;
  });
  return [
    { type: "string", value: fn },
    { type: "string", value: json },
    { type: "boolean", value: arm },
    ...refs,
  ];
}

export function unpackResult(result: Script.RemoteValue, context: string): unknown {
  const parts = (
    result.type === "array" && Array.isArray(result.value) ? result.value : []
  ) as Script.RemoteValue[];
  const head = parts[0];
  if (head?.type !== "string" || typeof head.value !== "string") {
    throw new Error("the page library answered in an unknown shape");
  }
  const refs = parts.slice(1).map((r): NodeRef | WindowRef | null => {
    const v = r as Script.RemoteValue & { sharedId?: string };
    if (r.type === "window") return { window: String((r.value as { context?: string })?.context ?? "") };
    if (typeof v.sharedId === "string") return { sharedId: v.sharedId, context };
    return null;
  });
  return JSON.parse(head.value, (_k, x: unknown) =>
    x !== null && typeof x === "object" && typeof (x as { $sf?: unknown }).$sf === "number"
      ? refs[(x as { $sf: number }).$sf]
      : x,
  );
}

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
