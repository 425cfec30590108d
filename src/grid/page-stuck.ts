// A page that stops answering: a dialog in another tab that holds this one (a pop-up's alert stops
// the tab that opened it: they share one event loop), a script that never yields, or a pop-up
// Chromium's BiDi ignores. The browser itself still answers (its context tree, its events), so each
// is told apart and named, and the held connection is kept: it is the one that saw the dialog open.
// The page port comes here only when it has a reason: a command still waiting after its watch
// interval, a page found stuck before, a tab not yet used.

import type { BrowsingContext } from "webdriver-bidi-protocol";
import { AppError } from "../errors.ts";
import { ping } from "../in-page/standalone.ts";
import { type BidiSocket, BidiTimeout, type Method, type Params, type Result, SANDBOX } from "./bidi.ts";
import type { HeldConnection } from "./held.ts";
import { callScript } from "./page-call.ts";
import { dialogOpenError } from "./page-dialogs.ts";
import { putBack, readPopup } from "./popup-kept.ts";

/** The probe a stuck page does not answer (src/in-page/standalone.ts). */
export const PING = String(ping);

type Held = Pick<HeldConnection, "socket" | "prompts" | "stuck">;

/** How long a trivial script may take before the document it went to counts as not answering. */
export const PROBE_MS = 1_000;

/** Whether `context`'s document runs a trivial script within `ms` (an error reply still answers). */
export function answers(socket: BidiSocket, context: string, ms = PROBE_MS): Promise<boolean> {
  return callScript(
    socket,
    { functionDeclaration: PING, target: { context, sandbox: SANDBOX }, awaitPromise: false },
    { timeoutMs: ms },
  ).then(
    () => true,
    (err: unknown) => !(err instanceof BidiTimeout),
  );
}

/** A dialog open in another tab, which the tab a call went to waits on (a 400: answer it). */
export class DialogElsewhere extends AppError {
  constructor(
    readonly prompt: BrowsingContext.UserPromptOpenedParameters,
    index: number,
  ) {
    const kind = prompt.type === "beforeunload" ? "leave-page" : prompt.type;
    super(
      "bad_input",
      `the page in tab ${index} shows a dialog (${kind}: ${JSON.stringify(prompt.message)}) and this tab waits on it: answer it with dialog, or close that tab (switch tab ${index}, then tab "close")`,
    );
    this.name = "DialogElsewhere";
  }
}

export const PAGE_BUSY =
  "the page stopped answering (a script in it is busy): wait and retry, navigate elsewhere, or call open_session with another url for a fresh browser (saved site data is restored); a call that finds it still busy replaces the browser by itself, on this page again";

/** The page runs something that never yields: a 503, as the next call may find it free. */
export class PageBusy extends AppError {
  constructor() {
    super("unavailable", PAGE_BUSY);
    this.name = "PageBusy";
  }
}

/** A dialog open in a tab other than `tab` (and `target`), if the connection saw one. */
export function promptElsewhere(
  prompts: ReadonlyMap<string, BrowsingContext.UserPromptOpenedParameters>,
  tab: string,
  target: string,
): BrowsingContext.UserPromptOpenedParameters | null {
  for (const [context, p] of prompts) if (context !== tab && context !== target) return p;
  return null;
}

/** The error naming `prompt`'s tab by its index (the browser's order of tabs, as switch lists them). */
export async function dialogElsewhere(
  socket: BidiSocket,
  prompt: BrowsingContext.UserPromptOpenedParameters,
): Promise<DialogElsewhere> {
  const tree = await socket
    .send("browsingContext.getTree", { maxDepth: 0 }, { timeoutMs: PROBE_MS })
    .catch(() => null);
  const index = tree?.contexts.findIndex((c) => c.context === prompt.context) ?? -1;
  return new DialogElsewhere(prompt, Math.max(0, index));
}

/**
 * Why a command to `target` has not answered, when the page is the reason: a dialog elsewhere, or
 * a busy script (the document does not take even a trivial one). Null: the page answers.
 */
export async function whyStuck(
  socket: BidiSocket,
  prompts: ReadonlyMap<string, BrowsingContext.UserPromptOpenedParameters>,
  tab: string,
  target: string,
): Promise<DialogElsewhere | PageBusy | null> {
  if (await answers(socket, target)) return null;
  // A dialog in another tab (one this tab shares an event loop with) holds it; else a script does.
  const after = promptElsewhere(prompts, tab, target);
  return after ? dialogElsewhere(socket, after) : new PageBusy();
}

/** On a page found stuck before, a trivial script says at once whether it still is (throws why). */
export async function stillStuck(held: Held, tab: string, target: string): Promise<void> {
  if (!held.stuck) return;
  const why = await whyStuck(held.socket, held.prompts, tab, target);
  if (why) throw why;
  held.stuck = false;
}

/** A command sent with its failures said plainly (the page port's). */
type Send = <M extends Method>(
  method: M,
  params: Params<M>,
  opts?: { timeoutMs?: number },
) => Promise<Result<M>>;

/** How long a pop-up's first script may take before it is taken for one Chromium's BiDi ignores. */
const POPUP_PROBE_MS = 500;

/**
 * Frees a tab Chromium's BiDi never answers, the first time it is used (see PagePort.usable):
 * a pop-up that kept its opener and loaded a same-origin URL at once is reloaded, and what its
 * opener appended is put back (popup-kept.ts). Marks the tab usable.
 */
export async function freePopup(
  held: Pick<HeldConnection, "socket" | "prompts" | "usable" | "racePrompt">,
  send: Send,
  tab: string,
  pageLoadMs: number,
): Promise<void> {
  // A tab held by its dialog answers no script either: it is not the pop-up's trouble, and a
  // reload would wait on the dialog for the whole page load timeout.
  const open = held.prompts.get(tab);
  if (open) throw dialogOpenError(open);
  const top = (await send("browsingContext.getTree", { root: tab, maxDepth: 0 })).contexts[0];
  if (top?.originalOpener && !(await answers(held.socket, tab, POPUP_PROBE_MS))) {
    const kept = await readPopup(held.socket, tab);
    // The page may open a dialog as it loads again: then the reload is done (it loads once the
    // dialog is answered), and the call says what the dialog is.
    const reload = send(
      "browsingContext.reload",
      { context: tab, wait: "complete" },
      { timeoutMs: pageLoadMs },
    );
    const reloaded = await held.racePrompt((c) => c === tab, reload);
    if ("prompt" in reloaded) {
      reload.catch(() => undefined);
      held.usable.add(tab);
      throw dialogOpenError(reloaded.prompt);
    }
    if (kept) await putBack(held.socket, tab, kept);
  }
  held.usable.add(tab);
}
