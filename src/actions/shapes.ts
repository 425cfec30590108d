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
export const PolicyShape = z.strictObject({
  allow: z.array(hostPattern).max(100).optional(),
  block: z.array(hostPattern).max(100).optional(),
  private: flag().optional(),
});

export const OpenInput = z.strictObject({
  url: webUrl()
    .optional()
    .describe("The first page (default: the last one).")
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
    .optional()
    .describe("innerWidth/innerHeight (width/height size the window).")
    .meta({
      docs: "The page's innerWidth and innerHeight in CSS pixels, kept on every reopen; width and height size the window around it.",
    }),
  fresh: flag()
    .optional()
    .describe("Start on about:blank.")
    .meta({ docs: "Stay on about:blank rather than go back to the last page." }),
  insecure: flag().optional().describe("Accept any TLS certificate; no saved site data."),
  record: flag().optional().describe("Film it as a video (costs the Grid).").meta({
    docs: "Ask the Grid to record a video of this browser's whole life. Not inherited by the next browser; the video appears under workspace://files/recordings shortly after the browser ends.",
  }),
  capture: flag().optional().describe("Console errors and failed requests in results."),
  policy: PolicyShape.optional()
    .describe("Narrow where requests go: allow/block hosts (*.host), private IPs. {} clears.")
    .meta({
      docs: "This workspace's navigation policy, kept for its next browsers until given again ({} clears it): allow (only these hosts), block (never these), private: true (no loopback, private, link-local or metadata address unless allow names it). Hosts are names, IPs or *.host (the host and every name under it). The browser checks every request of every tab, frame and pop-up against it and the server's navigate settings; it can narrow those, never widen them.",
    }),
  proxy: z.string().max(64).optional().describe('Secret naming an HTTP proxy; "" for none.').meta({
    docs: "The name of a secret (GET /secrets) whose keys are server (http://host:port, https:// or socks5://) and, for a proxy that asks, username and password: every request of this browser goes through it, and the browser answers the proxy's sign-in with them (never shown). Kept for the workspace's next browsers until given again; \"\" goes direct.",
  }),
  restore_site_data: flag(true)
    .describe("false: start as a new user (deletes saved site data).")
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
