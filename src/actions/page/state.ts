// Where an action left the browser, and what the history may record of it.
import { type WebDriver, error as wd } from "selenium-webdriver";
import { z } from "zod";
import { type PageState, pageState } from "../../grid/page.ts";
import type { ActionContext } from "../define.ts";

type Ctx = Pick<ActionContext, "land">;

const READ =
  "return [String(location.href), String(document.title), window.top === window, window.__sfLeaving || null]";

// A gesture that sends the page elsewhere (a submit button, a link, Enter in a form) starts the
// navigation a moment after WebDriver answers. The page is marked before the gesture (every
// locating script does it, so it costs no round trip): "yes" once a navigation to another document
// has begun (beforeunload, or the Navigation API's navigate event), "maybe" when a form was
// submitted or a link followed and it has not begun yet. ChromeDriver holds a script until a
// navigation it has seen begin is done, so the read after the gesture only has to catch up with the
// one it has not seen yet: it reads again while the old page says "yes" or "maybe", for a moment at
// most (a download or a 204 leaves the page where it is).
export const ARM = `(() => {
  window.__sfLeaving = null;
  if (window.__sfArmed) return;
  window.__sfArmed = true;
  const yes = () => { window.__sfLeaving = "yes" };
  const maybe = (e) => { if (!e.defaultPrevented && window.__sfLeaving !== "yes") window.__sfLeaving = "maybe" };
  window.addEventListener("beforeunload", yes);
  if (window.navigation) window.navigation.addEventListener("navigate", (e) => { if (!e.destination.sameDocument) yes() });
  window.addEventListener("submit", (e) => { if (!e.target.target || e.target.target === "_self") maybe(e) });
  window.addEventListener("click", (e) => {
    const a = e.target instanceof Element ? e.target.closest("a[href]") : null;
    if (a && (!a.target || a.target === "_self") && !a.getAttribute("href").startsWith("#")) maybe(e);
  });
})();`;
const CATCH_UP_MS = 1_000;

/** Marks the page before a gesture that may navigate; see `landed`. Never throws. */
export async function armNavigation(driver: WebDriver): Promise<void> {
  await driver.executeScript(ARM).catch(() => undefined);
}

/**
 * The url and title after an action, in one round trip. Inside a frame they are the frame's, and a
 * frame is not a page to come back to: nothing enters the history (as switch does). (A url carrying
 * a secret is hidden and not recorded by the manager's settle, for every action alike.)
 */
export async function landed(ctx: Ctx, driver: WebDriver): Promise<PageState & { dialog?: string }> {
  try {
    let got = (await driver.executeScript(READ)) as unknown;
    // The page is on its way out: read again, once the new page has loaded.
    const started = Date.now();
    while (Array.isArray(got) && got[3] !== null && Date.now() - started < CATCH_UP_MS) {
      await Bun.sleep(15);
      got = (await driver.executeScript(READ)) as unknown;
    }
    if (Array.isArray(got) && typeof got[0] === "string" && typeof got[1] === "string") {
      if (got[2] === false) ctx.land(null);
      return { url: got[0], title: got[1] };
    }
  } catch (err) {
    // The action opened a dialog: the page cannot answer until it is answered; say so.
    if (err instanceof wd.UnexpectedAlertOpenError || /unexpected alert open/i.test(String(err))) {
      const text = await driver
        .switchTo()
        .alert()
        .getText()
        .catch(() => "");
      return { url: "", title: "", dialog: text };
    }
    // a page still unloading: pageState knows what to do
  }
  return pageState(driver);
}

/** The output field for actions that can open a dialog. */
export const dialogField = {
  dialog: z
    .string()
    .optional()
    .describe(
      "Present when the action opened a dialog (alert, confirm, prompt): its message. The page answers nothing else until you answer it with the dialog tool; url and title are empty meanwhile.",
    ),
};

/** For scripts that read the page anyway and report `{url, title, top}` (top: not in a frame). */
export function landedFrom(ctx: Ctx, here: { url: string; title: string; top: boolean }): PageState {
  if (!here.top) ctx.land(null);
  return { url: here.url, title: here.title };
}
