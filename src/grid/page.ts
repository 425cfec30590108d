// Reading where a browser is, in one round trip when the page allows it.
import type { WebDriver } from "selenium-webdriver";

export interface PageState {
  url: string;
  title: string;
}

// The top document's, even inside a frame (WebDriver's own URL and title are the top's too).
const READ =
  "try { return [String(top.location.href), String(top.document.title)] } catch (e) { return null }";

/** The page's URL and title. With a dialog open the page cannot answer: the URL alone, or "". */
export async function pageState(driver: WebDriver): Promise<PageState> {
  try {
    const got = (await driver.executeScript(READ)) as unknown;
    if (Array.isArray(got) && typeof got[0] === "string" && typeof got[1] === "string") {
      return { url: got[0], title: got[1] };
    }
  } catch {
    // fall through: a dialog, a cross-origin frame, a page still loading, a context that went away
  }
  try {
    return { url: await driver.getCurrentUrl(), title: await driver.getTitle().catch(() => "") };
  } catch {
    return { url: "", title: "" };
  }
}
