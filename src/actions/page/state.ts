// Where an action left the browser, and what the history may record of it.
import { type WebDriver, error as wd } from "selenium-webdriver";
import { z } from "zod";
import { type PageState, pageState } from "../../grid/page.ts";
import type { ActionContext } from "../define.ts";
import { shownPage } from "../unsecret.ts";

type Ctx = Pick<ActionContext, "land" | "services">;

const READ = "return [String(location.href), String(document.title), window.top === window]";

/**
 * The url and title after an action, in one round trip. Inside a frame they are the frame's, and a
 * frame is not a page to come back to: nothing enters the history (as switch does). A url carrying a
 * secret is shown with [hidden] and not recorded.
 */
export async function landed(ctx: Ctx, driver: WebDriver): Promise<PageState & { dialog?: string }> {
  try {
    const got = (await driver.executeScript(READ)) as unknown;
    if (Array.isArray(got) && typeof got[0] === "string" && typeof got[1] === "string") {
      if (got[2] === false) ctx.land(null);
      return shownPage(ctx, { url: got[0], title: got[1] });
    }
  } catch (err) {
    // The action opened a dialog: the page cannot answer until it is answered; say so.
    if (err instanceof wd.UnexpectedAlertOpenError || /unexpected alert open/i.test(String(err))) {
      const text = await driver
        .switchTo()
        .alert()
        .getText()
        .catch(() => "");
      const shown = shownPage(ctx, { url: "", title: text });
      return { url: "", title: "", dialog: shown.title };
    }
    // a page still unloading: pageState knows what to do
  }
  return shownPage(ctx, await pageState(driver));
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
  return shownPage(ctx, { url: here.url, title: here.title });
}
