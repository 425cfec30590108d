// The page port: one BiDi command with its failures said plainly, the dialog watch, the sandbox calls.
import { error as wd } from "selenium-webdriver";
import type { BrowsingContext, Script } from "webdriver-bidi-protocol";
import { badInput } from "../errors.ts";
import { docTitle } from "../in-page/standalone.ts";
import type { Method, Params, Result } from "./bidi.ts";
import { BidiDead, BidiError, BidiTimeout, remoteValue, SANDBOX } from "./bidi.ts";
import type { HeldConnection } from "./held.ts";
import {
  declaration,
  type Landing,
  LIBRARY,
  NO_LIBRARY,
  type PageFn,
  type PageOptions,
  packArgs,
  type SendOpts,
  targetOf,
  unpackResult,
  urlIn,
} from "./page-call.ts";
import { DialogOpened, dialogOpenError, TabClosed } from "./page-dialogs.ts";
import { DialogElsewhere, freePopup, PageBusy, promptElsewhere, stillStuck, whyStuck } from "./page-stuck.ts";

/** The library for every new document's sandbox, installed by each held connection. */
export const LIBRARY_PRELOAD = `() => { if (!globalThis.__sfLib) { ${LIBRARY} } }`;
const TITLE = String(docTitle);

// A document on its way out answers "Cannot find context" for a moment, until the next is in.
const TRANSIENT =
  /cannot find context with specified id|execution context was destroyed|inspected target navigated/i;

/** Runs a read again, a moment later, while the document it went to is being replaced. */
export async function acrossReplacement<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      if (attempt >= 4 || !(err instanceof BidiError) || !TRANSIENT.test(err.bidiMessage)) throw err;
      await Bun.sleep(25 * attempt);
    }
  }
}

/** Which tab the agent acts in, and which frame inside it (null: the tab's top document). */
export interface Where {
  tab: string;
  frame: string | null;
}

/** How long a command may wait before the Grid is asked whether the browser still lives. */
const WATCH_MS = 400;
/** How long one of the server's own small reads may wait before the page counts as busy (see glance). */
const GLANCE_MS = 10_000;

/** "no such frame" for a context the tree still holds: its realm went stale (see send). */
class StaleRealm extends Error {}

export class PagePort {
  readonly where: Where;

  constructor(
    readonly held: HeldConnection,
    where: Where,
    protected readonly opts: PageOptions,
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
   * `endsOnDialog`: a dialog open in the agent's tab (or its frame), or opening while the command
   * waits, ends it with DialogOpened (the socket ends it, told by the held connection).
   */
  async send<M extends Method>(method: M, params: Params<M>, opts: SendOpts = {}): Promise<Result<M>> {
    try {
      return await this.sendOnce(method, params, opts);
    } catch (err) {
      // Back onto a page with an iframe (Chromium's back/forward cache): a script sent to the tab
      // meets "no such frame" for the old iframe's context. The tree, read again, names the tab:
      // the call goes once more, then says so plainly (Chromium's BiDi may still not find it).
      if (!(err instanceof StaleRealm)) throw err;
      return await this.sendOnce(method, params, opts).catch((again: unknown) => {
        throw again instanceof StaleRealm
          ? badInput("the page's document changed under the call: read_page again and retry")
          : again;
      });
    }
  }

  private async sendOnce<M extends Method>(method: M, params: Params<M>, opts: SendOpts): Promise<Result<M>> {
    const { tab, frame } = this.where;
    const endsOn = opts.endsOnDialog ? (frame ? [tab, frame] : [tab]) : undefined;
    const open = endsOn && (this.held.prompts.get(tab) ?? (frame ? this.held.prompts.get(frame) : undefined));
    if (open) throw new DialogOpened(open);
    const target = targetOf(method, params);
    // A page found stuck before is asked at once whether it still is; any other command goes
    // straight to the socket, and only one still waiting after WATCH_MS asks why (page-stuck.ts).
    if (target && this.held.stuck) await stillStuck(this.held, this.where.tab, target);
    const work = this.held.socket.send(method, params, { timeoutMs: opts.timeoutMs, endsOn });
    let timer: ReturnType<typeof setInterval> | undefined;
    const watchdog = new Promise<never>((_, reject) => {
      let ticks = 0;
      let asking = false;
      timer = setInterval(() => {
        if (ticks++ === 0)
          this.isGone().then(
            (gone) => {
              if (gone) reject(new wd.NoSuchSessionError("the browser is gone"));
            },
            () => undefined,
          );
        // A dialog open in another tab may be what holds this one: asked every WATCH_MS while it is.
        // So is an input or a sandbox script (the server's own, all short) after GLANCE_MS: a page
        // script that never yields holds it (a press may start one just after it answered).
        const own = (params as { target?: { sandbox?: string } }).target?.sandbox === SANDBOX;
        const late = ticks * WATCH_MS >= GLANCE_MS && (method === "input.performActions" || own);
        if (!target || asking || !(late || promptElsewhere(this.held.prompts, this.where.tab, target)))
          return;
        asking = true;
        whyStuck(this.held.socket, this.held.prompts, this.where.tab, target)
          .then((why) => {
            if (why instanceof PageBusy) this.held.stuck = true;
            if (why) reject(why);
          })
          .finally(() => {
            asking = false;
          });
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
      if (err instanceof DialogElsewhere || err instanceof PageBusy || err instanceof DialogOpened) throw err;
      throw await this.plain(err, params as { context?: string }, target);
    } finally {
      clearInterval(timer);
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
    target: string | null,
  ): Promise<unknown> {
    if (err instanceof BidiTimeout) {
      // A command past its deadline is a health probe: a channel that answers nothing more is dead.
      if (!(await this.held.socket.probe()) && this.held.socket.dead) return new BidiDead();
      // A Grid that does not answer either is named as such (its 503).
      if (await this.isGone()) {
        return new wd.NoSuchSessionError("the browser is gone");
      }
      // The browser answers but the page does not: say why, and keep the connection that knows it.
      const why = target ? await whyStuck(this.held.socket, this.held.prompts, this.where.tab, target) : null;
      if (why instanceof PageBusy) this.held.stuck = true;
      if (why) return why;
      // A command past its deadline is not waited on again: the next call opens a fresh connection.
      this.held.close();
      return err;
    }
    if (err instanceof BidiError) {
      const context = params.context ?? params.target?.context;
      if (err.error === "no such frame") {
        if (context && context === this.where.frame)
          return badInput("the frame is gone: leave it with switch (frame: null)");
        if (context && (await this.inTree(context))) return new StaleRealm(err.bidiMessage);
        return new TabClosed();
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

  // Whether the browser's tree, read again, still holds `context` (a tab or one of its frames).
  private async inTree(context: string): Promise<boolean> {
    const got = await this.held.socket.send("browsingContext.getTree", {}).catch(() => null);
    const has = (cs: BrowsingContext.Info[]): boolean =>
      cs.some((c) => c.context === context || has(c.children ?? []));
    return !!got && has(got.contexts);
  }

  /** The agent's tab and its frames, as the browser tells it. */
  async tree(): Promise<BrowsingContext.Info> {
    const got = await this.send("browsingContext.getTree", { root: this.where.tab });
    const top = got.contexts[0];
    if (!top) throw new TabClosed();
    return top;
  }

  /**
   * The URL (the browser's word) and title (what the page shows) of the document `context` holds,
   * the tab's top document by default, in one round trip.
   */
  async state(context: string = this.where.tab): Promise<{ url: string; title: string }> {
    const urlOf = (tree: BrowsingContext.Info) => {
      const url = urlIn(tree, context);
      if (url === null) throw badInput("the frame is gone: leave it with switch (frame: null)");
      return url;
    };
    if (this.prompt) return { url: urlOf(await this.tree()), title: "" };
    const [tree, title] = await Promise.all([
      this.tree(),
      this.title(context).catch((err: unknown) => {
        if (err instanceof DialogOpened) return "";
        throw err;
      }),
    ]);
    return { url: urlOf(tree), title };
  }

  /** What `context`'s document calls itself (shown, not trusted), read in the sandbox. */
  async title(context: string = this.where.tab): Promise<string> {
    const prompt = this.prompt;
    if (prompt) throw dialogOpenError(prompt);
    await this.usable();
    const reply = await acrossReplacement(() =>
      this.send(
        "script.callFunction",
        {
          functionDeclaration: TITLE,
          target: { context, sandbox: SANDBOX },
          awaitPromise: false,
          resultOwnership: "none",
        },
        { endsOnDialog: true },
      ),
    );
    const got = reply.type === "success" ? remoteValue(reply.result) : "";
    return typeof got === "string" ? got : "";
  }

  /**
   * After a gesture: the tab's tree and, in one sandbox call beside it, whether the agent's document
   * may be leaving and its title (`read`: afterGesture, or clickSeen with a press's check). Either
   * is null when it could not be read.
   */
  async landing(read: "afterGesture" | "clickSeen" = "afterGesture"): Promise<Landing> {
    const tree = this.tree().catch(() => null);
    const seen = await this.glance<Landing["seen"]>(this.context, read).catch(() => null);
    return { top: await tree, seen };
  }

  /** The dialog open in the agent's tab, if the connection saw one open. */
  get prompt(): BrowsingContext.UserPromptOpenedParameters | null {
    return this.held.prompts.get(this.where.tab) ?? null;
  }

  /** Runs the library's `fn(...args)` in the sandbox of the agent's context (its frame, else its tab). */
  async call<T>(fn: PageFn, ...args: unknown[]): Promise<T> {
    return this.run<T>(this.context, false, fn, args);
  }

  /**
   * `callIn`, marking the page first for the gesture that follows (see page/leaving.ts); `context`
   * is a frame a ref of read_page's leads to, else the tab.
   */
  async armingIn<T>(context: string, fn: PageFn, ...args: unknown[]): Promise<T> {
    return this.run<T>(context, true, fn, args);
  }

  async callIn<T>(context: string, fn: PageFn, ...args: unknown[]): Promise<T> {
    return this.run<T>(context, false, fn, args);
  }

  /**
   * `callIn` for a small read of the server's own (a title, whether a navigation is on its way): a
   * page that has not run it within GLANCE_MS is busy (a script that never yields), said then
   * rather than after the whole script timeout.
   */
  async glance<T>(context: string, fn: PageFn, ...args: unknown[]): Promise<T> {
    return this.run<T>(context, false, fn, args, GLANCE_MS);
  }

  private async run<T>(
    context: string,
    arm: boolean,
    fn: PageFn,
    args: unknown[],
    timeoutMs = this.opts.scriptMs,
  ): Promise<T> {
    return (await this.runOn<T>({ context, sandbox: SANDBOX }, context, arm, fn, args, timeoutMs)).value;
  }

  /**
   * `callIn` in one realm the browser named (the sandbox of a field's document, asked before), so the
   * work lands in that very document; `context` holds it (for the node refs it answers).
   */
  async callRealm<T>(realm: string, context: string, fn: PageFn, ...args: unknown[]): Promise<T> {
    return (await this.runOn<T>({ realm }, context, false, fn, args)).value;
  }

  /** `callIn`, answering the sandbox realm it ran in beside what `fn` answered. */
  async callWithRealm<T>(
    context: string,
    fn: PageFn,
    ...args: unknown[]
  ): Promise<{ value: T; realm: string }> {
    return this.runOn<T>({ context, sandbox: SANDBOX }, context, false, fn, args);
  }

  private async runOn<T>(
    target: Script.Target,
    context: string,
    arm: boolean,
    fn: PageFn,
    args: unknown[],
    timeoutMs = this.opts.scriptMs,
  ): Promise<{ value: T; realm: string }> {
    const prompt = this.prompt;
    if (prompt) throw dialogOpenError(prompt);
    // Another tab (its title in a tab list) is made usable as the agent's own is.
    if ("context" in target) await this.usable(context === this.context ? this.where.tab : context);
    // The library's own work (an outline of a huge page) gets the time a script would.
    const send = (withLibrary: boolean) =>
      this.send(
        "script.callFunction",
        {
          functionDeclaration: declaration(withLibrary),
          target,
          arguments: packArgs(fn, args, arm),
          awaitPromise: true,
          resultOwnership: "none",
          serializationOptions: { maxDomDepth: 0, maxObjectDepth: 1 },
        },
        { timeoutMs: Math.min(timeoutMs, this.opts.scriptMs), endsOnDialog: true },
      );
    let reply = await acrossReplacement(() => send(false));
    if (reply.type === "success" && reply.result.type === "string" && reply.result.value === NO_LIBRARY) {
      reply = await acrossReplacement(() => send(true));
    }
    if (reply.type === "exception") {
      throw new Error(`the page library failed: ${reply.exceptionDetails.text}`);
    }
    return { value: unpackResult(reply.result, context) as T, realm: reply.realm };
  }

  /**
   * Makes sure `tab` takes commands. Chromium's BiDi never answers a command addressed to a pop-up
   * that kept its opener and loaded a same-origin URL at once (`window.open("/path")` from a click,
   * or a `target=_blank rel=opener` link): not a script, a gesture, a screenshot nor locateNodes,
   * though it lists the pop-up and its realms. Only a new document over BiDi frees it: such a tab is
   * reloaded once, the first time it is used. Pop-ups without an opener (`noopener`, a plain
   * `target=_blank` link), cross-origin ones, and blank ones their opener writes into answer the
   * probe and are left alone (test/integration/real-web.test.ts holds each case). What an opener
   * appended to a reloaded one is put back (popup-kept.ts).
   */
  async usable(tab: string = this.where.tab): Promise<void> {
    if (this.held.usable.has(tab)) return;
    await freePopup(this.held, (m, p, o) => this.send(m, p, o), tab, this.opts.pageLoadMs);
  }

  /**
   * Runs `work` of more than one command (a page load and its wait); a dialog that opens in the tab
   * meanwhile ends the wait with DialogOpened. A single command says `endsOnDialog` instead.
   */
  async whilePrompt<T>(work: Promise<T>): Promise<T> {
    const tab = this.where.tab;
    // Dialogs are told per top-level context; one of a frame of this tab counts too.
    const got = await this.held.racePrompt((c) => c === tab || c === this.where.frame, work);
    if ("prompt" in got) {
      work.catch(() => undefined);
      throw new DialogOpened(got.prompt);
    }
    return got.done;
  }
}
