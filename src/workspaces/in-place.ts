// open_session with only routes, offline or emulate: the live browser takes them in place (its page,
// tabs and state stay), and the record keeps them for the next browsers. Anything else replaces it.
import type { OpenRequest, OpenResult } from "../actions/shapes.ts";
import { DEFAULT_HEIGHT, DEFAULT_WIDTH } from "../actions/shapes.ts";
import type { BrowserSettings } from "../store/record.ts";
import type { CallBrowser } from "./browsers.ts";

/** The fields a live browser takes in place. */
const IN_PLACE = new Set(["routes", "offline", "emulate"]);

/** A change in place: the settings before and after. */
export interface InPlace {
  before: BrowserSettings;
  after: BrowserSettings;
}

/**
 * The change `req` makes in place, or null when it asks for more (restore_site_data's default
 * aside). The live browser's own settings stay (record and insecure too): only the three change.
 */
export function inPlace(
  req: OpenRequest,
  before: BrowserSettings,
  resolved: BrowserSettings,
): InPlace | null {
  const given = Object.entries(req).filter(
    ([k, v]) => v !== undefined && !(k === "restore_site_data" && v === true),
  );
  if (!given.length || !given.every(([k]) => IN_PLACE.has(k))) return null;
  const { routes, offline, emulate } = resolved;
  const { routes: _r, offline: _o, emulate: _e, ...kept } = before;
  const after: BrowserSettings = {
    ...kept,
    ...(routes ? { routes } : {}),
    ...(offline ? { offline } : {}),
    ...(emulate ? { emulate } : {}),
  };
  return { before, after };
}

/**
 * Writes the new settings, then has the browser take them (its rules and emulation are applied as
 * a call takes it): a value the browser refuses (a 400) puts the record back as it was. Answers the page
 * it is on.
 */
export async function changeInPlace(
  c: InPlace,
  write: (settings: BrowserSettings) => Promise<unknown>,
  resolve: () => Promise<CallBrowser>,
): Promise<OpenResult> {
  await write(c.after);
  const browser = await resolve();
  try {
    const page = await browser.page().catch(async (err) => {
      await write(c.before).catch(() => undefined);
      throw err;
    });
    const state = await page.state();
    const now = browser.settings;
    return {
      url: state.url,
      title: state.title,
      browser: now.browser ?? "chrome",
      width: now.width ?? DEFAULT_WIDTH,
      height: now.height ?? DEFAULT_HEIGHT,
      settings: now,
      recording: now.record === true,
    };
  } finally {
    browser.release();
  }
}
