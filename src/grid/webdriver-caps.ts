// The new-session capabilities a browser is opened with, from the options the workspace asked for.
export interface OpenOptions {
  browser: "chrome" | "firefox";
  width?: number;
  height?: number;
  insecure?: boolean;
  /** seconds */
  pageLoadTimeout?: number;
  /** seconds */
  scriptTimeout?: number;
  record?: boolean;
  videoName?: string;
  /** The workspace it is opened for: with the server group, its owner tag (OWNER_CAP). */
  workspace?: string;
}

/** A tagged browser's owner: the server group (a digest of its store's key and place) and the workspace. */
export interface Owner {
  group: string;
  workspace: string;
}

/**
 * The capability that tags a browser with its owner. An extension capability (it has a colon):
 * drivers ignore it, and the Grid keeps it in the session's capabilities that /status lists.
 */
export const OWNER_CAP = "selenium-flow:owner";

/** The new-session capabilities for `o` (pure), tagged with its owner when `group` is given. */
export function capabilitiesOf(o: OpenOptions, group?: string): Record<string, unknown> {
  const caps: Record<string, unknown> = {
    browserName: o.browser,
    // Every browser speaks BiDi, so a saved site can be restored into it; all else stays classic.
    webSocketUrl: true,
    "se:downloadsEnabled": true,
    // With BiDi on, any other behaviour settles a dialog the moment it opens, before the `dialog`
    // action can read or answer it. Classic calls meanwhile fail with "unexpected alert open".
    unhandledPromptBehavior: "ignore",
  };
  if (o.insecure) caps.acceptInsecureCerts = true;
  const timeouts: Record<string, number> = {};
  if (o.pageLoadTimeout !== undefined) timeouts.pageLoad = Math.round(o.pageLoadTimeout * 1000);
  if (o.scriptTimeout !== undefined) timeouts.script = Math.round(o.scriptTimeout * 1000);
  if (Object.keys(timeouts).length) caps.timeouts = timeouts;
  const sized = o.width !== undefined && o.height !== undefined;
  if (o.browser === "firefox") {
    if (sized)
      caps["moz:firefoxOptions"] = { args: ["-width", String(o.width), "-height", String(o.height)] };
  } else {
    // No back/forward cache (as Playwright launches Chromium): a page restored from it answers every
    // sandbox call with BiDi's "no such frame" for an iframe it had, so one Back onto a page with an
    // iframe left the tab unreachable. Back and Forward load the page again instead.
    const args = ["--disable-back-forward-cache"];
    if (sized) args.push(`--window-size=${o.width},${o.height}`);
    caps["goog:chromeOptions"] = { args };
  }
  // docker-selenium's recorders film every session not told otherwise: an unfilmed browser says so,
  // or its video lands in the inbox with no workspace to file it in.
  caps["se:recordVideo"] = o.record === true;
  if (o.record && o.videoName) caps["se:videoName"] = o.videoName;
  if (group && o.workspace !== undefined) caps[OWNER_CAP] = { group, workspace: o.workspace } satisfies Owner;
  return caps;
}
