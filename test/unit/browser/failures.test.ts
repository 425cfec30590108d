// The WebDriver failure mapping: each driver error becomes a clear 400 (or 503), the browser being
// gone stays as it is for the manager, and typed text never reaches a message.
import { describe, expect, test } from "bun:test";
import { error as wd } from "selenium-webdriver";
import { mapDriverError, reasonOf } from "../../../src/browser/failures.ts";
import { AppError } from "../../../src/errors.ts";

const sel = { css: "#go" };
const mapped = (err: Error, about = {}) => mapDriverError(err, { selector: sel, ...about }) as AppError;

describe("mapDriverError", () => {
  test("driver errors become 400s that quote the selector and say what to do", () => {
    const cases: [Error, string][] = [
      [new wd.NoSuchElementError("no such element"), 'nothing matched {"css":"#go"}: call read_page'],
      [
        new wd.StaleElementReferenceError("stale"),
        '{"css":"#go"} was replaced by the page while the action ran: retry the call',
      ],
      [
        new wd.ElementNotInteractableError("element not interactable"),
        '{"css":"#go"} cannot be used: it is hidden, disabled',
      ],
      [
        new wd.InvalidElementStateError("invalid element state"),
        '{"css":"#go"} cannot be changed: it is disabled or read-only',
      ],
      [
        new wd.ElementClickInterceptedError(
          'element click intercepted: Element <a> is not clickable at point (1, 2). Other element would receive the click: <div class="cover">...</div>\n  (Session info: chrome=156)',
        ),
        '{"css":"#go"} is covered by <div class="cover">, which would get the click',
      ],
      [
        new wd.InvalidSelectorError("invalid selector: An invalid or illegal selector was specified"),
        'field "selector" is not a valid selector: An invalid or illegal selector was specified',
      ],
      [
        new wd.JavascriptError("javascript error: x is not defined\n  (Session info: chrome=156.0)"),
        "the page's script failed: x is not defined",
      ],
      [
        new wd.ScriptTimeoutError("script timeout"),
        "the script did not finish within the browser's script timeout",
      ],
      [
        new wd.NoSuchWindowError("no such window"),
        "the current tab was closed: pick another with switch (tab)",
      ],
      [
        new wd.UnexpectedAlertOpenError("unexpected alert open: {Alert text : Leave the page?}"),
        'a dialog is open: answer it with the dialog tool first (it says: "Leave the page?")',
      ],
    ];
    for (const [err, text] of cases) {
      const got = mapped(err);
      expect(got).toBeInstanceOf(AppError);
      expect(got.status).toBe(400);
      expect(got.message).toStartWith(text);
    }
    expect(mapped(new wd.InvalidSelectorError("bad"), { field: "target" }).message).toStartWith(
      'field "target" is not',
    );
  });

  test("a page load timeout is worth retrying: 503", () => {
    expect(mapped(new wd.TimeoutError("timeout: Timed out receiving message from renderer")).status).toBe(
      503,
    );
  });

  test("the browser being gone, AppErrors and the unexpected pass through untouched", () => {
    const gone = new wd.NoSuchSessionError("invalid session id");
    expect(mapDriverError(gone)).toBe(gone);
    const flow = new AppError("bad_input", "as it was");
    expect(mapDriverError(flow)).toBe(flow);
    const odd = new wd.WebDriverError("unknown error: something odd");
    expect(mapDriverError(odd)).toBe(odd);
  });

  test("typed text is cut out of any message", () => {
    const typed = "hunter2-typed";
    const got = mapped(new wd.JavascriptError(`javascript error: cannot use ${typed}`), { typed });
    expect(got.message).toBe("the page's script failed: cannot use [typed text]");
    const flow = mapDriverError(new AppError("bad_input", `saw ${typed}`, "x"), { typed }) as AppError;
    expect(flow.message).toBe("saw [typed text]");
    expect(flow.field).toBe("x");
  });

  test("reasonOf drops chromedriver's session lines", () => {
    expect(
      reasonOf(new Error("javascript error: boom\n  (Session info: chrome=156.0.1)\nStacktrace:\n#0 0x55")),
    ).toBe("boom");
  });
});
