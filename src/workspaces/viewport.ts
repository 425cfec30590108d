// open_session's viewport: the page's innerWidth and innerHeight, set over BiDi for the browser's
// whole user context, so every tab has it: those open now, the agent's new ones and the page's
// pop-ups (the browser keeps the setting across held connections). Width and height size the
// window around it. Read back in the first tab so the result says what it got.
import type { LiveBrowser } from "../actions/action.ts";
import { callScript } from "../grid/page-call.ts";
import { innerSize } from "../in-page/standalone.ts";

export type Viewport = { width: number; height: number };

/** Sizes every tab's page, now and later; answers the size the first tab got (null: could not tell). */
export async function applyViewport(browser: LiveBrowser, viewport: Viewport): Promise<Viewport | null> {
  const page = await browser.page();
  const context = page.where.tab;
  const [top] = (await page.send("browsingContext.getTree", { root: context, maxDepth: 0 })).contexts;
  await page
    .send("browsingContext.setViewport", { userContexts: [top?.userContext ?? "default"], viewport })
    // A browser whose BiDi sizes only one context at a time: its first tab at least.
    .catch(() => page.send("browsingContext.setViewport", { context, viewport }));
  const got = await callScript(page, {
    functionDeclaration: String(innerSize),
    target: { context, sandbox: "viewport" },
    awaitPromise: false,
    resultOwnership: "none",
  }).catch(() => null);
  const value = got?.type === "success" ? (got.result as { value?: unknown }).value : null;
  const m = typeof value === "string" ? /^(\d+)x(\d+)$/.exec(value) : null;
  return m ? { width: Number(m[1]), height: Number(m[2]) } : null;
}
