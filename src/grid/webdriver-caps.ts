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
  /** The proxy every request goes through: `http://host:port`, `https://host:port` or `socks5://host:port`. */
  proxy?: string;
  /** It emulates a location: every site may read it (Chrome asks no one). */
  geolocation?: boolean;
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

/** The W3C proxy capability for a proxy URL (its credentials are answered over BiDi, never here). */
export function proxyCapability(server: string): Record<string, unknown> {
  const url = new URL(server);
  const at = url.host;
  if (url.protocol === "socks5:" || url.protocol === "socks4:") {
    return { proxyType: "manual", socksProxy: at, socksVersion: url.protocol === "socks5:" ? 5 : 4 };
  }
  return { proxyType: "manual", httpProxy: at, sslProxy: at };
}

/**
 * Chrome's preferences for every browser: a PDF is downloaded as a file rather than shown in the
 * viewer, and a download a plain-HTTP page starts finishes. Chrome holds such a download back as
 * insecure (it stays `*.crdownload`, waiting for a person to keep it) unless the page's site may
 * run insecure content; that is allowed for http: pages only, so an https: page still blocks
 * mixed content (and a download it starts over http stays held back, listed as unfinished).
 */
const CHROME_PREFS = {
  "plugins.always_open_pdf_externally": true,
  "profile.content_settings.exceptions.mixed_script": { "http://*,*": { setting: 1 } },
};

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
  if (o.proxy) caps.proxy = proxyCapability(o.proxy);
  const timeouts: Record<string, number> = {};
  if (o.pageLoadTimeout !== undefined) timeouts.pageLoad = Math.round(o.pageLoadTimeout * 1000);
  if (o.scriptTimeout !== undefined) timeouts.script = Math.round(o.scriptTimeout * 1000);
  if (Object.keys(timeouts).length) caps.timeouts = timeouts;
  const sized = o.width !== undefined && o.height !== undefined;
  if (o.browser === "firefox") {
    // A PDF is downloaded as a file, not shown in the browser's viewer (a dead end for an agent).
    caps["moz:firefoxOptions"] = {
      ...(sized ? { args: ["-width", String(o.width), "-height", String(o.height)] } : {}),
      prefs: { "pdfjs.disabled": true },
    };
  } else {
    // No back/forward cache (as Playwright launches Chromium): a page restored from it answers every
    // sandbox call with BiDi's "no such frame" for an iframe it had, so one Back onto a page with an
    // iframe left the tab unreachable. Back and Forward load the page again instead.
    const args = ["--disable-back-forward-cache"];
    if (sized) args.push(`--window-size=${o.width},${o.height}`);
    const prefs = o.geolocation
      ? { ...CHROME_PREFS, "profile.default_content_setting_values.geolocation": 1 }
      : CHROME_PREFS;
    caps["goog:chromeOptions"] = { args, prefs };
  }
  // docker-selenium's recorders film every session not told otherwise: an unfilmed browser says so,
  // or its video lands in the inbox with no workspace to file it in.
  caps["se:recordVideo"] = o.record === true;
  if (o.record && o.videoName) caps["se:videoName"] = o.videoName;
  if (group && o.workspace !== undefined) caps[OWNER_CAP] = { group, workspace: o.workspace } satisfies Owner;
  return caps;
}
