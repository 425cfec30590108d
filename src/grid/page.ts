// The page an action works on, over the browser's held BiDi connection (spec §1.6, §1.13):
// - where the browser is comes from BiDi's browsing-context tree, never from page script;
// - every script of the server's own runs in a sandbox realm, with the page library installed,
//   so a page that replaces its own globals changes nothing the server computes;
// - elements cross as BiDi node references; gestures go through input.performActions.
import { error as wd } from "selenium-webdriver";
import { badInput, unavailable } from "../errors.ts";
import { pageLibrary } from "../page/bundle.ts" with { type: "macro" };
import type { PageLib } from "../page/index.ts";
import {
  BidiError,
  type BidiSocket,
  BidiTimeout,
  type BrowsingContextInfo,
  type Commands,
  type EvaluateResult,
  type KeyAction,
  type LocalValue,
  type Method,
  type PointerAction,
  type RemoteValue,
  SANDBOX,
  type SourceActions,
  type UserPrompt,
} from "./bidi.ts";
import type { HeldConnection } from "./held.ts";

const LIBRARY: string = pageLibrary();

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

export function isNodeRef(v: unknown): v is NodeRef {
  return typeof v === "object" && v !== null && typeof (v as NodeRef).sharedId === "string";
}

/** Which tab the agent acts in, and which frame inside it (null: the tab's top document). */
export interface Where {
  tab: string;
  frame: string | null;
}

// biome-ignore lint/suspicious/noExplicitAny: page functions take any JSON-able arguments and node refs
export type PageFn = (lib: PageLib, ...args: any[]) => unknown;

/** A dialog opened while the page worked: the page answers nothing more until it is answered. */
export class DialogOpened extends Error {
  constructor(readonly prompt: UserPrompt) {
    super(`a dialog opened: ${prompt.message}`);
    this.name = "DialogOpened";
  }
}

export const DIALOG_OPEN = "a dialog is open: answer it with the dialog tool first";

/** A dialog is open in the tab: nothing can run until it is answered. */
export function dialogOpenError(prompt: UserPrompt | null): Error {
  return badInput(
    prompt?.message ? `${DIALOG_OPEN} (it says: ${JSON.stringify(prompt.message)})` : DIALOG_OPEN,
  );
}

/** The library for every new document's sandbox, installed by each held connection. */
export const LIBRARY_PRELOAD = `() => { if (!globalThis.__sfLib) { ${LIBRARY} } }`;
const NO_LIBRARY = "__sf:no-library";

const lean = new WeakMap<PageFn, string>();
const whole = new WeakMap<PageFn, string>();

// The call unpacks its arguments, runs `fn` with the library and packs what it returns, all in the
// sandbox. The library is there already in any document loaded since the connection was held (its
// preload script put it there); the lean form says when it is not, and the whole form brings it.
function declaration(fn: PageFn, withLibrary: boolean): string {
  const cache = withLibrary ? whole : lean;
  let d = cache.get(fn);
  if (!d) {
    const install = withLibrary
      ? `if (!globalThis.__sfLib) { ${LIBRARY} }`
      : `if (!globalThis.__sfLib) return "${NO_LIBRARY}";`;
    d = `async function (__args, __arm, ...__refs) {
${install}
const L = globalThis.__sfLib; L.fresh(); if (__arm) L.arm();
return L.pack(await (${fn.toString()})(L, ...L.unpack(__args, __refs)));
}`;
    cache.set(fn, d);
  }
  return d;
}

/** Arguments as the sandbox takes them: one JSON string, and the node refs it points at. */
function packArgs(args: unknown[], arm: boolean): LocalValue[] {
  const refs: LocalValue[] = [];
  const json = JSON.stringify(args, (_k, v: unknown) => {
    if (isNodeRef(v)) {
      refs.push({ sharedId: v.sharedId });
      return { $sf: refs.length - 1 };
    }
    return v;
  });
  return [{ type: "string", value: json }, { type: "boolean", value: arm }, ...refs];
}

function unpackResult(result: RemoteValue, context: string): unknown {
  const parts = (result.type === "array" && Array.isArray(result.value) ? result.value : []) as RemoteValue[];
  const head = parts[0];
  if (head?.type !== "string" || typeof head.value !== "string") {
    throw new Error("the page library answered in an unknown shape");
  }
  const refs = parts.slice(1).map((r): NodeRef | WindowRef | null => {
    const v = r as RemoteValue & { sharedId?: string };
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

export interface PageOptions {
  /** How long a page may take to load (the browser's page_load_timeout). */
  pageLoadMs: number;
  /** How long a script of the caller's may run (script_timeout). */
  scriptMs: number;
  /** Whether the browser is gone (the Grid reaped it); asked when the connection fails. */
  gone: () => Promise<boolean>;
}

/** How long a popup's first script may take before it is taken for one Chromium's BiDi ignores. */
const PROBE_MS = 500;
/** How long a command may wait before the Grid is asked whether the browser still lives. */
const WATCH_MS = 400;
/** The pause before a key sequence's deadline, per key (typing is one BiDi command). */
const KEY_MS = 20;
const GRACE_MS = 10_000;

// BiDi key values are WebDriver's key codes; a newline is Enter and a tab is Tab, as sendKeys types them.
function keysOf(text: string): string[] {
  const out: string[] = [];
  for (const ch of text.replace(/\r\n?/g, "\n"))
    out.push(ch === "\n" ? "\uE007" : ch === "\t" ? "\uE004" : ch);
  return out;
}

export class Page {
  readonly where: Where;

  constructor(
    readonly held: HeldConnection,
    where: Where,
    private readonly opts: PageOptions,
  ) {
    this.where = { ...where };
  }

  /** The context the agent acts in: the frame it entered, else its tab. */
  get context(): string {
    return this.where.frame ?? this.where.tab;
  }

  /**
   * One BiDi command, with the failures page work can meet said plainly. The Grid does not close
   * the connection of a browser it removed (its commands just never answer), so a command still
   * waiting after WATCH_MS asks the Grid whether the browser lives; a gone one fails at once.
   */
  async send<M extends Method>(
    method: M,
    params: Commands[M]["params"],
    opts: { timeoutMs?: number } = {},
  ): Promise<Commands[M]["result"]> {
    const work = this.held.socket.send(method, params, opts);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const watchdog = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.isGone().then(
          (gone) => {
            if (gone) reject(new wd.NoSuchSessionError("the browser is gone"));
          },
          () => undefined,
        );
      }, WATCH_MS);
    });
    try {
      return await Promise.race([work, watchdog]);
    } catch (err) {
      work.catch(() => undefined);
      if (err instanceof wd.NoSuchSessionError) {
        this.held.close();
        throw err;
      }
      throw await this.plain(err, params as { context?: string });
    } finally {
      clearTimeout(timer);
    }
  }

  private goneCheck: Promise<boolean> | null = null;

  // One question to the Grid at a time, whatever waits on it.
  private isGone(): Promise<boolean> {
    this.goneCheck ??= this.opts.gone().finally(() => {
      this.goneCheck = null;
    });
    return this.goneCheck;
  }

  // A dropped connection may mean the Grid reaped the browser: then it is the manager's to reopen.
  private async plain(
    err: unknown,
    params: { context?: string; target?: { context?: string } },
  ): Promise<unknown> {
    if (err instanceof BidiTimeout) {
      // A Grid that does not answer either is named as such (its 503).
      if (await this.isGone()) {
        return new wd.NoSuchSessionError("the browser is gone");
      }
      // A command past its deadline is not waited on again: the next call opens a fresh connection.
      this.held.close();
      return err;
    }
    if (err instanceof BidiError) {
      const context = params.context ?? params.target?.context;
      if (err.error === "no such frame") {
        if (context && context === this.where.frame)
          return badInput("the frame is gone: leave it with switch (frame: null)");
        return badInput("the current tab was closed: pick another with switch (tab)");
      }
      if (err.error === "no such node" || /belongs to different document|stale/i.test(err.bidiMessage)) {
        return new wd.StaleElementReferenceError(err.bidiMessage);
      }
      return err;
    }
    if (this.held.closed && (await this.isGone().catch(() => false))) {
      return new wd.NoSuchSessionError("the browser is gone");
    }
    return err;
  }

  /** The dialog open in the agent's tab, if the connection saw one open. */
  get prompt(): UserPrompt | null {
    return this.held.prompts.get(this.where.tab) ?? null;
  }

  /** Runs `fn(L, ...args)` in the sandbox of the agent's context (its frame, else its tab). */
  async call<T>(fn: PageFn, ...args: unknown[]): Promise<T> {
    return this.run<T>(this.context, false, fn, args);
  }

  /** `call`, marking the page first for the gesture that follows (see page/leaving.ts). */
  async arming<T>(fn: PageFn, ...args: unknown[]): Promise<T> {
    return this.run<T>(this.context, true, fn, args);
  }

  async callIn<T>(context: string, fn: PageFn, ...args: unknown[]): Promise<T> {
    return this.run<T>(context, false, fn, args);
  }

  private async run<T>(context: string, arm: boolean, fn: PageFn, args: unknown[]): Promise<T> {
    const prompt = this.prompt;
    if (prompt) throw dialogOpenError(prompt);
    await this.usable();
    // The library's own work (an outline of a huge page) gets the time a script would.
    const send = (withLibrary: boolean) =>
      this.whilePrompt(
        this.send(
          "script.callFunction",
          {
            functionDeclaration: declaration(fn, withLibrary),
            target: { context, sandbox: SANDBOX },
            arguments: packArgs(args, arm),
            awaitPromise: true,
            resultOwnership: "none",
            serializationOptions: { maxDomDepth: 0, maxObjectDepth: 1 },
          },
          { timeoutMs: this.opts.scriptMs },
        ),
      );
    let reply = await settling(() => send(false));
    if (reply.type === "success" && reply.result.type === "string" && reply.result.value === NO_LIBRARY) {
      reply = await settling(() => send(true));
    }
    if (reply.type === "exception") {
      throw new Error(`the page library failed: ${reply.exceptionDetails.text}`);
    }
    return unpackResult(reply.result, context) as T;
  }

  /**
   * Makes sure the tab takes scripts. Chromium's BiDi never answers a script sent to a window the
   * page opened with window.open and kept its opener (an OAuth popup, say) until it has been
   * navigated over BiDi: such a tab is reloaded once, the first time it is used.
   */
  async usable(): Promise<void> {
    const tab = this.where.tab;
    if (this.held.usable.has(tab)) return;
    const top = (await this.send("browsingContext.getTree", { root: tab, maxDepth: 0 })).contexts[0] as
      | (BrowsingContextInfo & { originalOpener?: string | null })
      | undefined;
    if (top?.originalOpener) {
      const answered = await this.held.socket
        .send(
          "script.callFunction",
          { functionDeclaration: "() => 1", target: { context: tab, sandbox: SANDBOX }, awaitPromise: false },
          { timeoutMs: PROBE_MS },
        )
        .then(
          () => true,
          (err: unknown) => !(err instanceof BidiTimeout),
        );
      if (!answered) {
        await this.send(
          "browsingContext.reload",
          { context: tab, wait: "complete" },
          { timeoutMs: this.opts.pageLoadMs },
        );
      }
    }
    this.held.usable.add(tab);
  }

  /** Runs `work`; a dialog that opens in the tab meanwhile ends the wait with DialogOpened. */
  async whilePrompt<T>(work: Promise<T>): Promise<T> {
    const tab = this.where.tab;
    const got = await this.held.racePrompt((c) => c === tab || this.inTab(c), work);
    if ("prompt" in got) {
      work.catch(() => undefined);
      throw new DialogOpened(got.prompt);
    }
    return got.done;
  }

  // Dialogs are told per top-level context; one of a frame of this tab counts too.
  private inTab(context: string): boolean {
    return context === this.where.frame;
  }

  /**
   * Runs a caller's function declaration in the page's own world of `context` (what
   * execute_script means), awaiting a promise; its value as the browser serialised it.
   */
  async userCall(context: string, declaration: string, args: LocalValue[]): Promise<RemoteValue> {
    const prompt = this.prompt;
    if (prompt) throw dialogOpenError(prompt);
    await this.usable();
    let reply: Awaited<ReturnType<BidiSocket["send"]>> & EvaluateResult;
    try {
      reply = (await this.whilePrompt(
        this.send(
          "script.callFunction",
          {
            functionDeclaration: declaration,
            target: { context },
            arguments: args,
            awaitPromise: true,
            resultOwnership: "none",
            serializationOptions: { maxDomDepth: 0, maxObjectDepth: 20 },
          },
          { timeoutMs: this.opts.scriptMs + GRACE_MS },
        ),
      )) as EvaluateResult;
    } catch (err) {
      if (err instanceof BidiTimeout) {
        throw badInput(
          "the script did not finish within the browser's script timeout: make it return sooner, or open the browser with a larger script_timeout",
        );
      }
      throw err;
    }
    if (reply.type === "exception") {
      const text = reply.exceptionDetails.text.replace(/^(?:Uncaught )?(?:[A-Z]\w*)?Error: /, "");
      throw badInput(`the page's script failed: ${text}`);
    }
    return reply.result;
  }

  /**
   * Whether a document of the agent's tab holds a typed secret (a bound write marked it in the
   * sandbox, which the page cannot reach; a new document starts unmarked).
   */
  async holdsTypedSecret(): Promise<boolean> {
    const contexts: string[] = [];
    const walk = (c: BrowsingContextInfo) => {
      contexts.push(c.context);
      for (const child of c.children ?? []) walk(child);
    };
    walk(await this.tree());
    const marks = await Promise.all(
      contexts.map((context) =>
        this.held.socket
          .send("script.callFunction", {
            functionDeclaration: "() => globalThis.__sfTyped === true",
            target: { context, sandbox: SANDBOX },
            awaitPromise: false,
            resultOwnership: "none",
          })
          .then((r) => r.type === "success" && r.result.value === true)
          .catch(() => false),
      ),
    );
    return marks.some(Boolean);
  }

  // ---- where the browser is -----------------------------------------------------------------

  /** The agent's tab and its frames, as the browser tells it. */
  async tree(): Promise<BrowsingContextInfo> {
    const got = await this.send("browsingContext.getTree", { root: this.where.tab });
    const top = got.contexts[0];
    if (!top) throw badInput("the current tab was closed: pick another with switch (tab)");
    return top;
  }

  /** Every tab, in the order they were opened. */
  async tabs(): Promise<BrowsingContextInfo[]> {
    return (await this.send("browsingContext.getTree", { maxDepth: 0 })).contexts;
  }

  /** Whether the agent's tab is still open (the page may close its own window). */
  async tabOpen(): Promise<boolean> {
    return (await this.tabs()).some((t) => t.context === this.where.tab);
  }

  /** The top page's URL, from the browser. */
  async url(): Promise<string> {
    return (await this.tree()).url;
  }

  /**
   * The URL of the document `context` holds, from the browser: what a bound write checks. An
   * about:blank or srcdoc frame has its parent's origin, so its parent's URL counts.
   */
  async documentUrl(context: string = this.context): Promise<string> {
    const path = pathTo(await this.tree(), context);
    if (!path) throw badInput("the frame is gone: leave it with switch (frame: null)");
    for (let i = path.length - 1; i >= 0; i--) {
      const url = (path[i] as BrowsingContextInfo).url;
      if (!/^about:(blank|srcdoc)\b/i.test(url) || i === 0) return url;
    }
    return "";
  }

  /**
   * The URL (the browser's word) and title (what the page shows) of the document `context` holds,
   * the tab's top document by default, in one round trip.
   */
  async state(context: string = this.where.tab): Promise<{ url: string; title: string }> {
    const urlIn = (tree: BrowsingContextInfo) => {
      const path = pathTo(tree, context);
      if (!path) throw badInput("the frame is gone: leave it with switch (frame: null)");
      return (path[path.length - 1] as BrowsingContextInfo).url;
    };
    if (this.prompt) return { url: urlIn(await this.tree()), title: "" };
    const [tree, title] = await Promise.all([
      this.tree(),
      this.title(context).catch((err: unknown) => {
        if (err instanceof DialogOpened) return "";
        throw err;
      }),
    ]);
    return { url: urlIn(tree), title };
  }

  /** What `context`'s document calls itself (shown, not trusted), read in the sandbox. */
  async title(context: string = this.where.tab): Promise<string> {
    const prompt = this.prompt;
    if (prompt) throw dialogOpenError(prompt);
    await this.usable();
    const reply = await settling(() =>
      this.whilePrompt(
        this.send("script.callFunction", {
          functionDeclaration: "() => String(document.title)",
          target: { context, sandbox: SANDBOX },
          awaitPromise: false,
          resultOwnership: "none",
        }),
      ),
    );
    return reply.type === "success" && typeof reply.result.value === "string" ? reply.result.value : "";
  }

  // ---- moving the page ------------------------------------------------------------------------

  /** Loads `url` in the tab (leaving any frame), waiting for it as classic WebDriver does. */
  async goto(url: string): Promise<void> {
    this.where.frame = null;
    await this.loading(() =>
      this.send(
        "browsingContext.navigate",
        { context: this.where.tab, url, wait: "complete" },
        { timeoutMs: this.opts.pageLoadMs },
      ),
    );
  }

  async history(delta: -1 | 1): Promise<void> {
    this.where.frame = null;
    const before = this.held.navigationCount;
    await this.loading(async () => {
      await this.send("browsingContext.traverseHistory", { context: this.where.tab, delta });
      // The step itself answers at once; the page it goes to loads afterwards.
      if (this.held.navigationCount === before) await Bun.sleep(15);
      await this.held.settled(this.where.tab, this.opts.pageLoadMs);
    });
  }

  async reload(): Promise<void> {
    this.where.frame = null;
    await this.loading(() =>
      this.send(
        "browsingContext.reload",
        { context: this.where.tab, wait: "complete" },
        { timeoutMs: this.opts.pageLoadMs },
      ),
    );
  }

  private async loading<T>(go: () => Promise<T>): Promise<void> {
    try {
      await this.whilePrompt(go());
    } catch (err) {
      if (err instanceof DialogOpened) return;
      if (err instanceof BidiTimeout) {
        throw unavailable(
          "the page did not finish loading within the browser's page load timeout: retry after a wait, or open the browser with a larger page_load_timeout",
        );
      }
      if (err instanceof BidiError && /net::ERR_ABORTED/.test(err.bidiMessage)) return;
      if (err instanceof BidiError && /net::ERR_/.test(err.bidiMessage)) {
        const reason = /net::ERR_[A-Z_]+/.exec(err.bidiMessage)?.[0] ?? err.bidiMessage;
        throw badInput(
          `the page could not be loaded (${reason}): check the address, or whether the site answers`,
        );
      }
      throw err;
    }
  }

  /**
   * After a gesture: waits for the navigation it started, if any (one that began, or one the page
   * says is on its way), so the result is the new page.
   */
  async afterGesture(startedBefore: number, maybe: boolean): Promise<void> {
    const tab = this.where.tab;
    if (this.prompt) return;
    if (this.held.navigationCount === startedBefore && maybe) {
      const until = Date.now() + 1_000;
      while (this.held.navigationCount === startedBefore && Date.now() < until && !this.prompt)
        await Bun.sleep(15);
    }
    if (this.held.navigationCount !== startedBefore) await this.held.settled(tab, this.opts.pageLoadMs);
  }

  // ---- input ---------------------------------------------------------------------------------

  /** One performActions in the element's context; a dialog it opens ends the wait (DialogOpened). */
  async perform(context: string, actions: SourceActions[], timeoutMs?: number): Promise<void> {
    const prompt = this.prompt;
    if (prompt) throw dialogOpenError(prompt);
    await this.whilePrompt(this.send("input.performActions", { context, actions }, { timeoutMs }));
  }

  async click(el: NodeRef, opts: { button?: number; count?: number } = {}): Promise<void> {
    const button = opts.button ?? 0;
    const actions: PointerAction[] = [{ type: "pointerMove", x: 0, y: 0, origin: origin(el) }];
    for (let i = 0; i < (opts.count ?? 1); i++)
      actions.push({ type: "pointerDown", button }, { type: "pointerUp", button });
    await this.perform(el.context, [mouse(actions)]);
  }

  async hover(el: NodeRef): Promise<void> {
    await this.perform(el.context, [mouse([{ type: "pointerMove", x: 0, y: 0, origin: origin(el) }])]);
  }

  /** A pointer drag: press, nudge past drag thresholds, travel, release. */
  async drag(from: NodeRef, to: NodeRef): Promise<void> {
    await this.perform(from.context, [
      mouse([
        { type: "pointerMove", x: 0, y: 0, origin: origin(from) },
        { type: "pointerDown", button: 0 },
        { type: "pointerMove", x: 5, y: 5, duration: 50, origin: origin(from) },
        { type: "pointerMove", x: 0, y: 0, duration: 150, origin: origin(to) },
        { type: "pointerUp", button: 0 },
      ]),
    ]);
  }

  /** Key presses in `context`: each combo's modifiers held around its key. */
  async keys(context: string, combos: { modifiers: string[]; key: string }[]): Promise<void> {
    const actions: KeyAction[] = [];
    for (const c of combos) {
      for (const m of c.modifiers) actions.push({ type: "keyDown", value: m });
      actions.push({ type: "keyDown", value: c.key }, { type: "keyUp", value: c.key });
      for (const m of [...c.modifiers].reverse()) actions.push({ type: "keyUp", value: m });
    }
    await this.perform(
      context,
      [{ type: "key", id: "keyboard", actions }],
      GRACE_MS + actions.length * KEY_MS,
    );
  }

  /** Types `text` key by key into whatever has focus in `context`. */
  async type(context: string, text: string): Promise<void> {
    await this.keys(
      context,
      keysOf(text).map((key) => ({ modifiers: [], key })),
    );
  }

  async setFiles(el: NodeRef, files: string[]): Promise<void> {
    await this.send("input.setFiles", { context: el.context, element: { sharedId: el.sharedId }, files });
  }
}

// A document on its way out answers "Cannot find context" for a moment, until the next is in.
const TRANSIENT =
  /cannot find context with specified id|execution context was destroyed|inspected target navigated/i;

/** Runs a read again, a moment later, while the document it went to is being replaced. */
async function settling<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      if (attempt >= 4 || !(err instanceof BidiError) || !TRANSIENT.test(err.bidiMessage)) throw err;
      await Bun.sleep(25 * attempt);
    }
  }
}

const mouse = (actions: PointerAction[]): SourceActions => ({
  type: "pointer",
  id: "mouse",
  parameters: { pointerType: "mouse" },
  actions,
});

const origin = (el: NodeRef) => ({ type: "element" as const, element: { sharedId: el.sharedId } });

/** The contexts from `root` down to `context`, or null when it is not in the tree. */
function pathTo(root: BrowsingContextInfo, context: string): BrowsingContextInfo[] | null {
  if (root.context === context) return [root];
  for (const child of root.children ?? []) {
    const below = pathTo(child, context);
    if (below) return [root, ...below];
  }
  return null;
}
