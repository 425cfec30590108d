// The page an action works on, over the browser's held BiDi connection (docs/architecture.md: held connection, sandbox realm):
// - where the browser is comes from BiDi's browsing-context tree, never from page script;
// - every script of the server's own runs in a sandbox realm, with the page library installed,
//   so a page that replaces its own globals changes nothing the server computes;
// - elements cross as BiDi node references; gestures go through input.performActions.

import type { BrowsingContext, Script } from "webdriver-bidi-protocol";
import { badInput, conflict, unavailable } from "../errors.ts";
import { BidiError, BidiTimeout } from "./bidi.ts";
import { DialogOpened, dialogOpenError } from "./page-dialogs.ts";
import { GRACE_MS, PageInput } from "./page-input.ts";
import { refusalText } from "./policy.ts";

/** The schemes a page may be loaded from when navigate.allow_schemes is not given. */
export const DEFAULT_SCHEMES = ["http", "https", "data", "about"];
/** A 400 naming the scheme when `url`'s may not be loaded (navigate.allow_schemes): navigate and open_session alike. */
export function checkScheme(url: string, schemes: readonly string[] = DEFAULT_SCHEMES): void {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase() ?? "";
  if (!schemes.includes(scheme)) {
    throw badInput(
      `url: ${scheme}: addresses are not loaded here (the navigate.allow_schemes setting allows ${schemes.join(", ")}): give an http or https URL, or ask the operator to add it to NAVIGATE_ALLOW_SCHEMES`,
      "url",
    );
  }
}
/** How long past an interactive document a navigation waits for its `load`. */
const LOAD_MS = 3_000;

/** The page port and its input verbs, with where the browser is and moving the page on top. */
export class Page extends PageInput {
  // ---- where the browser is -----------------------------------------------------------------

  /** Every tab, in the order they were opened. */
  async tabs(): Promise<BrowsingContext.Info[]> {
    return (await this.send("browsingContext.getTree", { maxDepth: 0 })).contexts;
  }

  /**
   * When the agent's tab is no longer among `tabs` (its page closed it: a sign-in pop-up once it
   * posted its answer), the agent moves to the tab that opened it, else the first. Returns the tab
   * it is in now, or null when none is open.
   */
  rehome(tabs: BrowsingContext.Info[]): BrowsingContext.Info | null {
    const here = tabs.find((t) => t.context === this.where.tab);
    if (here) return here;
    const opener = this.held.openers.get(this.where.tab);
    const next = tabs.find((t) => t.context === opener) ?? tabs[0] ?? null;
    if (next) {
      this.where.tab = next.context;
      this.where.frame = null;
    }
    return next;
  }

  /** Whether the agent's tab is still open (the page may close its own window). */
  async tabOpen(): Promise<boolean> {
    return (await this.tabs()).some((t) => t.context === this.where.tab);
  }

  /** The top page's URL, from the browser. */
  async url(): Promise<string> {
    return (await this.tree()).url;
  }

  // ---- moving the page ------------------------------------------------------------------------

  /**
   * Loads `url` in the tab (leaving any frame): done once its document is interactive, then waits
   * up to LOAD_MS more for `load`. The page load timeout bounds only a document that never becomes
   * interactive. Says whether it stopped waiting for `load` (a subresource still hangs).
   */
  async goto(url: string): Promise<{ loading: boolean }> {
    checkScheme(url, this.opts.schemes);
    const refused = this.opts.policy?.refusal(url);
    if (refused) throw badInput(`url: ${refusalText(refused)}`, "url");
    this.where.frame = null;
    let loading = false;
    await this.loading(async () => {
      await this.send(
        "browsingContext.navigate",
        { context: this.where.tab, url, wait: "interactive" },
        { timeoutMs: this.opts.pageLoadMs },
      );
      loading = !(await this.held.navigationOver(this.where.tab, LOAD_MS));
    });
    return { loading };
  }

  /** The HTTP status of the tab's document, as its navigation's response said (none from a cache). */
  get status(): number | undefined {
    return this.held.documentStatus.get(this.where.tab);
  }

  /**
   * One step back or forward: done once the document it goes to is interactive (or came back from
   * the back/forward cache), then up to LOAD_MS more for `load`, as goto. Says whether it stopped
   * waiting for `load`.
   */
  async history(delta: -1 | 1): Promise<{ loading: boolean }> {
    this.where.frame = null;
    const before = this.held.navigationCount;
    let loading = false;
    await this.loading(async () => {
      await this.send("browsingContext.traverseHistory", { context: this.where.tab, delta }).catch((err) => {
        if (err instanceof BidiError && err.error === "no such history entry")
          throw conflict(`there is no page to go ${delta < 0 ? "back" : "forward"} to in this tab`);
        throw err;
      });
      // The step itself answers at once; the page it goes to loads afterwards.
      if (this.held.navigationCount === before) await Bun.sleep(15);
      const ready = await this.held.navigationOver(this.where.tab, this.opts.pageLoadMs, true);
      loading = !ready || !(await this.held.navigationOver(this.where.tab, LOAD_MS));
    });
    return { loading };
  }

  /** Loads the tab's document again: done once it is interactive, then up to LOAD_MS for `load`. */
  async reload(): Promise<{ loading: boolean }> {
    this.where.frame = null;
    let loading = false;
    await this.loading(async () => {
      await this.send(
        "browsingContext.reload",
        { context: this.where.tab, wait: "interactive" },
        { timeoutMs: this.opts.pageLoadMs },
      );
      loading = !(await this.held.navigationOver(this.where.tab, LOAD_MS));
    });
    return { loading };
  }

  private async loading<T>(go: () => Promise<T>): Promise<void> {
    // A page held by its dialog moves only once the dialog is answered (the browser would send it on
    // later, behind the agent's back, and close the dialog unanswered).
    const prompt = this.prompt;
    if (prompt) throw dialogOpenError(prompt);
    const since = Date.now();
    try {
      await this.whilePrompt(go());
    } catch (err) {
      if (err instanceof DialogOpened) return;
      // A redirect the navigation policy refused: said as a url refused at once is.
      const refused = this.held.net?.refusedIn(this.where.tab, since);
      if (refused && err instanceof BidiError) {
        throw badInput(`the page went on to ${refused.url}, and ${refusalText(refused)}`, "url");
      }
      if (err instanceof BidiTimeout) {
        throw unavailable(
          "the page did not finish loading within the browser's page load timeout: retry after a wait, or open the browser with a larger page_load_timeout",
        );
      }
      if (err instanceof BidiError && /net::ERR_ABORTED/.test(err.bidiMessage)) return;
      // The page sent itself elsewhere while loading (a script's location.replace): follow it there.
      if (err instanceof BidiError && /canceled by concurrent navigation/i.test(err.bidiMessage)) {
        await this.held.navigationOver(this.where.tab, this.opts.pageLoadMs);
        return;
      }
      if (err instanceof BidiError && /net::ERR_INVALID_AUTH_CREDENTIALS/.test(err.bidiMessage)) {
        throw badInput(
          "the site asks for HTTP authentication (net::ERR_INVALID_AUTH_CREDENTIALS): the browser's own sign-in box is not answered here; a url with the user name and password in it (https://user:password@host/) signs in",
        );
      }
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
    if (this.held.navigationCount !== startedBefore)
      await this.held.navigationOver(tab, this.opts.pageLoadMs);
  }

  /**
   * Runs a caller's function declaration in the page's own world of `context` (what
   * execute_script means), awaiting a promise; its value as the browser serialised it.
   */
  async userCall(
    context: string,
    declaration: string,
    args: Script.LocalValue[],
  ): Promise<Script.RemoteValue> {
    const prompt = this.prompt;
    if (prompt) throw dialogOpenError(prompt);
    await this.usable();
    let reply: Script.EvaluateResult;
    try {
      reply = (await this.send(
        "script.callFunction",
        {
          functionDeclaration: declaration,
          target: { context },
          arguments: args,
          awaitPromise: true,
          resultOwnership: "none",
          serializationOptions: { maxDomDepth: 0, maxObjectDepth: 20 },
        },
        { timeoutMs: this.opts.scriptMs + GRACE_MS, endsOnDialog: true },
      )) as Script.EvaluateResult;
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
}
