import { describe, expect, test } from "bun:test";
import { error as wdError } from "selenium-webdriver";
import { unavailable } from "../../../src/errors.ts";
import { Grid } from "../../../src/grid/webdriver.ts";
import { isNoSuchSession } from "../../../src/grid/webdriver-errors.ts";

const grid = new Grid("http://127.0.0.1:4444");

describe("Grid.capabilities", () => {
  test("chrome: BiDi, managed downloads, dialogs left open, not filmed, no back/forward cache, window size as a Chromium switch, nothing else by default", () => {
    expect(grid.capabilities({ browser: "chrome", width: 1280, height: 900 })).toEqual({
      browserName: "chrome",
      webSocketUrl: true,
      "se:downloadsEnabled": true,
      "se:recordVideo": false,
      unhandledPromptBehavior: "ignore",
      "goog:chromeOptions": {
        args: ["--disable-back-forward-cache", "--window-size=1280,900"],
        // A PDF downloads as a file; a download from a plain-HTTP page finishes (issue 45).
        prefs: {
          "plugins.always_open_pdf_externally": true,
          "profile.content_settings.exceptions.mixed_script": { "http://*,*": { setting: 1 } },
        },
      },
    });
  });

  test("firefox: BiDi, managed downloads, dialogs left open, not filmed, window size as Firefox's -width/-height", () => {
    expect(grid.capabilities({ browser: "firefox", width: 1024, height: 768 })).toEqual({
      browserName: "firefox",
      webSocketUrl: true,
      "se:recordVideo": false,
      "se:downloadsEnabled": true,
      unhandledPromptBehavior: "ignore",
      "moz:firefoxOptions": { args: ["-width", "1024", "-height", "768"], prefs: { "pdfjs.disabled": true } },
    });
  });

  test("insecure, timeouts in ms, and no size switch without a size (the cache switch stays)", () => {
    const caps = grid.capabilities({
      browser: "chrome",
      insecure: true,
      pageLoadTimeout: 30,
      scriptTimeout: 2.5,
    });
    expect(caps.acceptInsecureCerts).toBe(true);
    expect(caps.timeouts).toEqual({ pageLoad: 30_000, script: 2_500 });
    expect((caps["goog:chromeOptions"] as { args: string[] }).args).toEqual(["--disable-back-forward-cache"]);
    expect(grid.capabilities({ browser: "firefox", pageLoadTimeout: 5 }).timeouts).toEqual({
      pageLoad: 5_000,
    });
    expect(grid.capabilities({ browser: "chrome" }).acceptInsecureCerts).toBeUndefined();
    expect(grid.capabilities({ browser: "chrome" }).timeouts).toBeUndefined();
  });

  test("recording only when asked, with the video name; otherwise the Grid is told not to film", () => {
    for (const browser of ["chrome", "firefox"] as const) {
      const plain = grid.capabilities({ browser, videoName: "bot" });
      expect(plain["se:recordVideo"]).toBe(false);
      expect(plain["se:videoName"]).toBeUndefined();
      const rec = grid.capabilities({ browser, record: true, videoName: "bot" });
      expect(rec["se:recordVideo"]).toBe(true);
      expect(rec["se:videoName"]).toBe("bot");
    }
  });
});

describe("Grid.bidiUrl", () => {
  test("https becomes wss, the trailing slash goes, the path stays", () => {
    expect(new Grid("https://grid.example.test:4444/").bidiUrl("abc")).toBe(
      "wss://grid.example.test:4444/session/abc/se/bidi",
    );
    expect(new Grid("http://grid.example.test:4444/wd/hub/").bidiUrl("abc")).toBe(
      "ws://grid.example.test:4444/wd/hub/session/abc/se/bidi",
    );
    expect(new Grid("http://grid.example.test").bidiUrl("abc")).toBe(
      "ws://grid.example.test/session/abc/se/bidi",
    );
  });

  test("credentials stay out of the URL (they travel as a header)", () => {
    const g = new Grid("https://user:s3cret@grid.example.test:4444/");
    expect(g.url).toBe("https://user:s3cret@grid.example.test:4444/");
    expect(g.bidiUrl("abc")).toBe("wss://grid.example.test:4444/session/abc/se/bidi");
  });

  test("attach binds the id without a network call", async () => {
    const driver = new Grid("http://127.0.0.1:1").attach("abc");
    expect((await driver.getSession()).getId()).toBe("abc");
  });
});

describe("isNoSuchSession", () => {
  test("recognises the driver's and the Grid's ways of saying the browser is gone", () => {
    expect(isNoSuchSession(new wdError.NoSuchSessionError("x"))).toBe(true);
    expect(isNoSuchSession(new Error("Unable to find session with ID: 0123"))).toBe(true);
    // The Grid's router for a browser removed while a command ran, as a 500 "unknown error".
    expect(
      isNoSuchSession(
        new wdError.WebDriverError(
          "Unable to find session with ID: 0123. Session was removed\nBuild info: x",
        ),
      ),
    ).toBe(true);
    expect(isNoSuchSession(new wdError.WebDriverError("Session was closed due to timeout"))).toBe(true);
    // Its node's words.
    expect(isNoSuchSession(new Error("Cannot find session with id: 0123"))).toBe(true);
    expect(
      isNoSuchSession(
        new Error("invalid session id: session deleted as the browser has closed the connection"),
      ),
    ).toBe(true);
  });

  test("other failures are not read as gone", () => {
    expect(isNoSuchSession(new wdError.NoSuchElementError("no such element"))).toBe(false);
    expect(isNoSuchSession(new wdError.TimeoutError("timeout"))).toBe(false);
    expect(isNoSuchSession(unavailable("the Grid at http://g did not answer: invalid session id"))).toBe(
      false,
    );
    expect(isNoSuchSession("invalid session id")).toBe(false);
    expect(isNoSuchSession(null)).toBe(false);
  });
});
