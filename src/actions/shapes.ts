// The shapes of opening a browser, declared once: open_session's input and output (the settings a
// browser was opened with are the record's: store/shapes.ts; workspaces/settings.ts resolves them).
import { z } from "zod";
import { hostPatternProblem } from "../kit/hosts.ts";
import { BrowserSettingsShape, SiteDataHint } from "../store/shapes.ts";
import { flag, webUrl } from "./fields.ts";

export const DEFAULT_WIDTH = 1280;
export const DEFAULT_HEIGHT = 720;

/** A host or `*.host` (the host and every name under it), as navigate.allowed_hosts takes them. */
const hostPattern = z
  .string()
  .max(253)
  .refine((p) => hostPatternProblem(p) === null, "must be a host or *.host");

/** A workspace's navigation policy: it narrows the server's, never widens it. */
export const PolicyShape = z
  .strictObject({
    allow: z.array(hostPattern).max(100).optional(),
    block: z.array(hostPattern).max(100).optional(),
    private: flag().optional(),
  })
  .meta({ shared: true });

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A workspace's routes: requests answered or failed by the browser itself (grid/routes.ts). */
export const RoutesShape = z
  .array(
    z
      .strictObject({
        url: z.string().min(1).max(2048),
        status: z.number().int().min(200).max(599).optional(),
        headers: z
          .record(
            z.string().max(256).regex(TOKEN),
            z
              .string()
              .max(8192)
              .regex(/^[^\r\n\0]*$/),
          )
          .optional(),
        body: z.string().max(262_144).optional(),
        block: flag().optional(),
      })
      .meta({ shared: true }),
  )
  .max(50);

/** What a workspace's browser emulates (grid/emulation.ts). */
export const EmulateShape = z
  .strictObject({
    locale: z.string().max(64).optional(),
    timezone: z.string().max(64).optional(),
    user_agent: z.string().max(1024).optional(),
    geolocation: z
      .strictObject({
        latitude: z.number().min(-90).max(90),
        longitude: z.number().min(-180).max(180),
        accuracy: z.number().min(0).optional(),
      })
      .optional(),
    media: z.record(z.string().max(64), z.string().max(64)).optional(),
  })
  .meta({ shared: true });

export const OpenInput = z.strictObject({
  url: webUrl()
    .optional()
    .describe("First page (default: the last).")
    .meta({ docs: "The first page. Default: the workspace's last page." }),
  browser: z
    .enum(["chrome", "firefox"])
    .optional()
    .meta({ docs: "Default chrome, or what this workspace last used." }),
  width: z
    .number()
    .int()
    .min(320)
    .max(7680)
    .optional()
    .meta({ docs: `Window width in pixels (default ${DEFAULT_WIDTH}).` }),
  height: z
    .number()
    .int()
    .min(240)
    .max(4320)
    .optional()
    .meta({ docs: `Window height in pixels (default ${DEFAULT_HEIGHT}).` }),
  viewport: z
    .strictObject({ width: z.number().int().min(200).max(7680), height: z.number().int().min(200).max(4320) })
    .meta({ shared: true })
    .optional()
    .describe("{width, height}: innerWidth/innerHeight; width/height size the window.")
    .meta({
      docs: "The page's innerWidth and innerHeight in CSS pixels, kept on every reopen; width and height size the window around it.",
    }),
  fresh: flag()
    .optional()
    .describe("Start on about:blank.")
    .meta({ docs: "Stay on about:blank rather than go back to the last page." }),
  insecure: flag().optional().describe("Any TLS certificate; no saved site data."),
  record: flag().optional().describe("Film it as a video (costs the Grid).").meta({
    docs: "Ask the Grid to record a video of this browser's whole life. Not inherited by the next browser; the video appears under workspace://files/recordings shortly after the browser ends.",
  }),
  capture: flag().optional().describe("Console errors and failed requests in results."),
  policy: PolicyShape.optional()
    .describe("{allow, block: hosts, *.host; private: true} narrows where requests go. {} clears.")
    .meta({
      docs: "This workspace's navigation policy, kept for its next browsers until given again ({} clears it): allow (only these hosts), block (never these), private: true (no loopback, private, link-local or metadata address unless allow names it). Hosts are names, IPs or *.host (the host and every name under it). The browser checks every request of every tab, frame and pop-up against it and the server's navigate settings; it can narrow those, never widen them.",
    }),
  proxy: z.string().max(64).optional().describe('Secret naming an HTTP proxy; "" for none.').meta({
    docs: "The name of a secret (GET /secrets) whose keys are server (http://host:port, https:// or socks5://) and, for a proxy that asks, username and password: every request of this browser goes through it, and the browser answers the proxy's sign-in with them (never shown). Kept for the workspace's next browsers until given again; \"\" goes direct.",
  }),
  routes: RoutesShape.optional()
    .describe(
      "[{url: glob (* any), status (200), headers, body | block: true}] answer or fail matches. [] clears.",
    )
    .meta({
      docs: "This workspace's network routes, kept for its next browsers until given again ([] clears them): each request of any tab, frame or worker whose URL (without its #fragment) matches url — a glob on the whole URL where * is any text — is answered by the browser itself with status (default 200), headers and body, or fails as a network error with block: true; it never leaves the browser. The first matching route wins; the navigation policy is judged first. A cross-origin fetch needs the CORS headers (access-control-allow-origin) in headers, as from a real server. Alone (with offline or emulate) on a live browser, changed in place.",
    }),
  offline: flag().optional().describe("Cut the network (false: back).").meta({
    docs: "Every tab goes offline (navigator.onLine false; requests fail with net::ERR_INTERNET_DISCONNECTED) until offline: false. Kept for the workspace's next browsers. Alone (with routes or emulate) on a live browser, changed in place: the page stays.",
  }),
  emulate: EmulateShape.optional()
    .describe(
      'locale, timezone, user_agent, geolocation, media ({"prefers-color-scheme":"dark"}). {} clears.',
    )
    .meta({
      docs: "What every tab of this workspace's browser reports, kept for its next browsers until given again ({} clears): locale (BCP 47, navigator.language and Intl), timezone (IANA, Intl and Date), user_agent (navigator.userAgent and the User-Agent header), geolocation ({latitude, longitude, accuracy} in metres; every site may read it), media (CSS media features by name: prefers-color-scheme, prefers-reduced-motion, prefers-contrast, forced-colors …). Through WebDriver BiDi's emulation module: a browser that lacks a command, or refuses a value, is a 400 naming the field. Alone (with routes or offline) on a live browser, changed in place.",
    }),
  restore_site_data: flag(true)
    .describe("false: a new user (deletes saved site data).")
    .meta({ docs: "Restore what save_site_data kept (default true). false opens empty and deletes it." }),
  page_load_timeout: z
    .number()
    .min(1)
    .max(600)
    .optional()
    .describe("Seconds.")
    .meta({ docs: "Seconds a page may take to load." }),
  script_timeout: z
    .number()
    .min(1)
    .max(600)
    .optional()
    .describe("Seconds.")
    .meta({ docs: "Seconds a script may run." }),
});

export const OpenOutput = z.object({
  url: z.string().describe("The page the browser is on."),
  title: z.string(),
  browser: z.enum(["chrome", "firefox"]),
  width: z.number().int(),
  height: z.number().int(),
  viewport: z
    .object({ width: z.number().int(), height: z.number().int() })
    .meta({ shared: true })
    .optional()
    .describe("With viewport asked: the page's innerWidth and innerHeight, as it got them."),
  // In tools/list one small object (its fields are open_session's own inputs); OpenAPI keeps it whole.
  settings: BrowserSettingsShape.meta({ shared: true }),
  recording: z.boolean().describe("Whether this browser is being recorded."),
  recording_error: z.string().optional().describe("Why this recording cannot be filed, when it cannot."),
  site_data: SiteDataHint.optional(),
  dialog: z
    .string()
    .optional()
    .describe(
      "Present when the first page opened a dialog as it loaded: its message; url and title are empty.",
    ),
});

/** What an open asks for: open_session's input. */
export type OpenRequest = z.infer<typeof OpenInput>;

/** What open_session answers. */
export type OpenResult = z.infer<typeof OpenOutput>;
