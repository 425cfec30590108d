// Where an action left the browser, and what the history may record of it.
import type { WebDriver } from "selenium-webdriver";
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
export async function landed(ctx: Ctx, driver: WebDriver): Promise<PageState> {
  try {
    const got = (await driver.executeScript(READ)) as unknown;
    if (Array.isArray(got) && typeof got[0] === "string" && typeof got[1] === "string") {
      if (got[2] === false) ctx.land(null);
      return shownPage(ctx, { url: got[0], title: got[1] });
    }
  } catch {
    // a dialog opened by the action, a page still unloading: pageState knows what to do
  }
  return shownPage(ctx, await pageState(driver));
}

/** For scripts that read the page anyway and report `{url, title, top}` (top: not in a frame). */
export function landedFrom(ctx: Ctx, here: { url: string; title: string; top: boolean }): PageState {
  if (!here.top) ctx.land(null);
  return shownPage(ctx, { url: here.url, title: here.title });
}
