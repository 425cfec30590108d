// open_session's viewport: the page's innerWidth and innerHeight, set on the browser's tab over
// BiDi (width and height size the window around it), and read back so the result says what it got.
import type { LiveBrowser } from "../actions/shape.ts";

export type Viewport = { width: number; height: number };

/** Sizes the first tab's page; answers the size it got (null: could not tell). */
export async function applyViewport(browser: LiveBrowser, viewport: Viewport): Promise<Viewport | null> {
  const page = await browser.page();
  const context = page.where.tab;
  await page.send("browsingContext.setViewport", { context, viewport });
  const got = await page
    .send("script.evaluate", {
      expression: "innerWidth + 'x' + innerHeight",
      target: { context, sandbox: "viewport" },
      awaitPromise: false,
      resultOwnership: "none",
    })
    .catch(() => null);
  const value = got?.type === "success" ? (got.result as { value?: unknown }).value : null;
  const m = typeof value === "string" ? /^(\d+)x(\d+)$/.exec(value) : null;
  return m ? { width: Number(m[1]), height: Number(m[2]) } : null;
}
