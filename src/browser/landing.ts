// Where an action left the browser, and what the history may record of it.

import { z } from "zod";
import type { LiveBrowser } from "../actions/action.ts";
import type { Effects } from "../actions/effects.ts";
import type { Page } from "../grid/page.ts";
import { urlIn } from "../grid/page-call.ts";
import { DialogOpened, TabClosed } from "../grid/page-dialogs.ts";
import type { Landing } from "../grid/page-input.ts";
import { DialogElsewhere } from "../grid/page-stuck.ts";

export interface Landed {
  url: string;
  title: string;
  dialog?: string;
}

// A gesture that sends the page elsewhere (a link, a submit button, Enter in a form) may start its
// navigation a moment after the gesture answers. The browser tells the held connection when a
// navigation begins and ends; locating marked the page (in the sandbox) so it also says when one
// is on its way but has not begun ("maybe"), which is waited for a moment at most. Nothing else is
// waited for: a dialog that opens after the gesture answered (a timer, a fetch's answer) is the
// next call's to report (the held connection sees it open, and every call checks first).

/**
 * Where a gesture's press began and what it read: the navigations begun before it (`landed` waits
 * past them) and, for a click or a bound write, its own read of where the page is after it (`landed` takes it).
 */
export interface Press {
  before: number;
  read?: Landing;
}

/**
 * What a gesture's press that threw `err` means: a dialog it opened, or its own tab it closed (a
 * sign-in pop-up's Allow: the landing hands the agent back to the tab that opened it), was still
 * the press delivered, and the gesture is done; anything else is thrown again. Called only where
 * the press failed.
 */
export async function delivered(page: Page, err: unknown): Promise<undefined> {
  if (err instanceof DialogOpened || (tabGoneError(err) && (await tabGone(page)))) return undefined;
  throw err;
}

const tabGoneError = (err: unknown) => err instanceof TabClosed;

/**
 * Whether the agent's tab is gone. A tab that closed itself can still be listed, or the list can
 * fail, for a moment after its page went (seen under load): asked again for up to a second.
 */
async function tabGone(page: Page): Promise<boolean> {
  const until = Date.now() + 1_000;
  for (;;) {
    const open = await page.tabOpen().catch(() => null);
    if (open === false) return true;
    if (Date.now() >= until) return false;
    await Bun.sleep(100);
  }
}

/** Marks the page before a gesture that located nothing (a key press on the page). Never throws. */
export async function armNavigation(page: Page): Promise<void> {
  await page.arm().catch(() => undefined);
}

/**
 * The url and title after a gesture begun when `before` navigations had started: the new page once
 * one it started has loaded. Inside a frame they are the frame's, and a frame is not a page to come
 * back to: nothing enters the history (`effects`). A dialog it opened is reported instead (url and
 * title empty). `read`: the gesture's own read of where the page is (a click's), if it has one.
 */
export async function landed(page: Page, before: number, effects: Effects, read?: Landing): Promise<Landed> {
  if (page.prompt) return here(page, effects);
  // Most gestures stay on the page: whether one is leaving and the title come in one sandbox call,
  // beside the browser's tree for the url. A navigation begun meanwhile is waited for instead.
  const { top, seen } = read?.seen ? read : await page.landing();
  const url = top && seen ? urlIn(top, page.context) : null;
  if (url !== null && seen && seen.leaving === null && page.held.navigationCount === before && !page.prompt) {
    return inFrame(page, { url, title: seen.title }, effects);
  }
  await page.afterGesture(before, seen?.leaving === "maybe");
  // A link in the frame that loads the whole tab (target=_top) took the frame away: the agent is at
  // the tab's top again, on the page it loaded.
  if (page.where.frame && page.held.navigationCount !== before) {
    const now = await page.tree().catch(() => null);
    if (now && urlIn(now, page.where.frame) === null) page.where.frame = null;
  }
  return here(page, effects);
}

// Inside a frame the landing is the frame's: nothing enters the history.
function inFrame(page: Page, at: Landed, effects: Effects): Landed {
  if (page.where.frame) effects.land(null);
  return at;
}

/** Where the agent is now: its document's url (from the browser) and title, or the open dialog. */
export async function here(page: Page, effects: Effects): Promise<Landed> {
  let prompt = page.prompt;
  if (!prompt) {
    let state: Landed;
    try {
      state = await page.state(page.context);
    } catch (err) {
      // A dialog in another tab holds this one (a pop-up's alert): the action's result names it.
      if (err instanceof DialogElsewhere) return { url: "", title: "", dialog: err.prompt.message };
      if (tabGoneError(err) ? await tabGone(page) : (await page.tabOpen().catch(() => true)) === false)
        return handedBack(page, effects);
      throw err;
    }
    // A dialog that opened meanwhile (the page opens the next one as soon as the last closes).
    prompt = page.prompt;
    if (!prompt) return inFrame(page, state, effects);
  }
  return { url: "", title: "", dialog: prompt.message };
}

/**
 * The action closed its own tab (a sign-in pop-up's window.close once it has posted its answer):
 * the agent is back on the tab that opened it, else the first, as a person's view is. Its page was
 * there already: nothing enters the history.
 */
async function handedBack(page: Page, effects: Effects): Promise<Landed> {
  effects.land(null);
  const next = page.rehome(await page.tabs().catch(() => []));
  if (!next) return { url: "", title: "" };
  await page.front();
  return await page.state(page.context).catch(() => ({ url: next.url, title: "" }));
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

/** The tab's top page now, from the browser; empty when it cannot tell (a dialog, a gone tab). */
export async function browserState(browser: LiveBrowser): Promise<{ url: string; title: string }> {
  try {
    return await (await browser.page()).state();
  } catch {
    return { url: "", title: "" };
  }
}
