// What a WebDriver failure means for the caller, decided in one place for every page action.
//
//   mapDriverError(err, about) → the error to throw: an AppError with a clear message, or `err`
//                                itself when it is not the caller's to fix (the browser is gone, so
//                                the manager reopens it; the Grid is down; an error nobody
//                                expected → 500).
//   isStale(err)               → whether an element went stale: the caller runs what it did once more
//                                (locating afresh) and maps a failure where it catches it; no wrapper
//                                is entered on every call.
//
// `about.selector` is quoted in messages; `about.typed` (text being typed) is cut out of any message.
import { error as wd } from "selenium-webdriver";
import { AppError, badInput, redactCredentials, unavailable } from "../errors.ts";
import { TabClosed } from "../grid/page-dialogs.ts";
import { coveredError as covered } from "../grid/page-found.ts";
import { isNoSuchSession } from "../grid/webdriver-errors.ts";

export interface About {
  /** The selector the action was working on, quoted as the user wrote it. */
  selector?: unknown;
  /** The input field that selector came from (`selector`, `target`); named for an invalid selector. */
  field?: string;
  /** Text being typed: never echoed. */
  typed?: string;
}

/** The selector as compact JSON, the way a caller wrote it. */
export function quoteSelector(selector: unknown): string {
  return JSON.stringify(selector) ?? "the element";
}

/** The driver's own reason, without chromedriver's session and build lines. */
export function reasonOf(err: unknown): string {
  let text = err instanceof Error ? err.message : String(err);
  text = text.split(/\n\s*\((?:Session info|Driver info)|\nBuild info|\nSystem info|\nStacktrace/)[0] ?? text;
  text = text.replace(/^(?:javascript error|unknown error|invalid argument|invalid selector):\s*/i, "");
  text = text.replace(/\s+/g, " ").trim();
  if (text.length > 300) text = `${text.slice(0, 297)}...`;
  return redactCredentials(text);
}

/** What a "click intercepted" message says covers the element: `<div class="overlay">`. */
function coveringOf(message: string): string | null {
  const m = /Other element would receive the click: (<[^>]{1,200}>)/.exec(message);
  return m ? (m[1] as string) : null;
}

/** The text of the dialog an "unexpected alert open" error names. */
function alertTextOf(err: Error): string | null {
  const own = err instanceof wd.UnexpectedAlertOpenError ? err.getAlertText() : undefined;
  if (own) return own;
  const m = /\{Alert text : ([\s\S]*)\}/.exec(err.message);
  return m ? (m[1] as string) : null;
}

export const DIALOG_OPEN = "a dialog is open: answer it with the dialog tool first";

function withoutTyped(message: string, typed: string | undefined): string {
  return typed && typed.length >= 3 ? message.split(typed).join("[typed text]") : message;
}

export function mapDriverError(err: unknown, about: About = {}): unknown {
  if (err instanceof AppError) {
    if (!about.typed || !err.message.includes(about.typed)) return err;
    return new AppError(err.kind, withoutTyped(err.message, about.typed), err.field);
  }
  if (!(err instanceof Error) || isNoSuchSession(err)) return err;
  const q = about.selector === undefined ? "the element" : quoteSelector(about.selector);
  const reason = withoutTyped(reasonOf(err), about.typed);
  const field = about.field ?? "selector";
  const bad = (message: string, f?: string) => badInput(withoutTyped(message, about.typed), f);

  if (err instanceof wd.UnexpectedAlertOpenError || /unexpected alert open/i.test(err.message)) {
    const text = alertTextOf(err);
    return bad(
      text === null ? DIALOG_OPEN : `${DIALOG_OPEN} (it says: ${JSON.stringify(redactCredentials(text))})`,
    );
  }
  if (err instanceof wd.StaleElementReferenceError) {
    return bad(`${q} was replaced by the page while the action ran: retry the call`, field);
  }
  if (err instanceof wd.NoSuchElementError) {
    return bad(`nothing matched ${q}: call read_page to see what is on the page and its selectors`, field);
  }
  if (err instanceof wd.ElementClickInterceptedError) return coveredError(about, coveringOf(err.message));
  if (err instanceof wd.ElementNotInteractableError) {
    return bad(
      `${q} cannot be used: it is hidden, disabled, outside the page or has no size. Reveal it first (hover or click what opens it), or use another selector (read_page lists what can be used)`,
      field,
    );
  }
  if (err instanceof wd.InvalidElementStateError) {
    return bad(`${q} cannot be changed: it is disabled or read-only`, field);
  }
  if (err instanceof wd.ElementNotSelectableError) {
    return bad(`${q} cannot be selected: it is not an option, a checkbox or a radio button`, field);
  }
  if (err instanceof wd.MoveTargetOutOfBoundsError) {
    return bad(`${q} is outside the window and could not be scrolled into view`, field);
  }
  if (err instanceof wd.InvalidSelectorError) {
    return bad(`field "${field}" is not a valid selector: ${reason}`, field);
  }
  if (err instanceof wd.JavascriptError) {
    return bad(`the page's script failed: ${reason}`);
  }
  if (err instanceof wd.ScriptTimeoutError) {
    return bad(
      "the script did not finish within the browser's script timeout: make it return sooner, or open the browser with a larger script_timeout",
    );
  }
  if (err instanceof wd.TimeoutError) {
    return unavailable(
      "the page did not finish loading within the browser's page load timeout: retry after a wait, or open the browser with a larger page_load_timeout",
    );
  }
  if (err instanceof wd.NoSuchWindowError) return new TabClosed();
  if (err instanceof wd.NoSuchFrameError) {
    return bad("the frame is gone: leave it with switch (frame: null)");
  }
  if (err instanceof wd.InsecureCertificateError) {
    return bad("the page's certificate is not trusted: open the browser with insecure=true to accept it");
  }
  if (err instanceof wd.InvalidArgumentError) {
    return bad(`the browser refused the call: ${reason}`);
  }
  return err;
}

/** The 400 for a click another element would get; `cover` describes that element when known. */
export function coveredError(about: About, cover: string | null): AppError {
  const q = about.selector === undefined ? "the element" : quoteSelector(about.selector);
  return covered(q, cover, about.field ?? "selector");
}

/** Whether `err` says an element went stale: the action is worth running once more, locating afresh. */
export const isStale = (err: unknown): boolean => err instanceof wd.StaleElementReferenceError;
