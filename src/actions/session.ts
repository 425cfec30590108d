// Opening and ending the workspace's browser.
import { z } from "zod";
import { DEFAULT_HEIGHT, DEFAULT_WIDTH } from "../workspaces/settings.ts";
import { defineAction, flag, SiteDataHint, webUrl } from "./define.ts";

const Settings = z
  .object({
    browser: z.enum(["chrome", "firefox"]).optional(),
    width: z.number().int().optional(),
    height: z.number().int().optional(),
    insecure: z.boolean().optional(),
    capture: z.boolean().optional(),
    record: z.boolean().optional(),
    page_load_timeout: z.number().optional(),
    script_timeout: z.number().optional(),
  })
  .describe("What this browser was opened with; a replacement opens the same way.");

export const openSession = defineAction({
  name: "open_session",
  http: { method: "POST", path: "/browser" },
  title: "Open a browser",
  description: [
    "Open (or replace) this workspace's browser. Rarely needed: any action opens one, and one the Grid reaped comes back by itself on the last page.",
    "Use it to start over or to change its settings. Saved site data is restored first, so you arrive signed in.",
  ].join(" "),
  docs: [
    "With no url it goes back to the workspace's last page (fresh=true stays on about:blank instead).",
    "Saved site data (see save_site_data) is restored before the first page loads; restore_site_data=false opens without it and deletes it, which is how you start as a new user.",
    "insecure=true accepts any certificate and gets no saved site data. capture=true reports the page's console errors and failed requests in each result as `page`.",
    "record=true films this browser's whole life as a video, from now until it ends; it appears under workspace://files/recordings shortly after. A person watches it, so only when one will — it costs the Grid. Not inherited: ask again for the next browser.",
    "Returns url, title, browser, width, height, settings, recording, and site_data when something was restored, skipped or forgotten.",
  ].join(" "),
  input: z.strictObject({
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
    fresh: flag()
      .optional()
      .describe("Stay on about:blank, not the last page.")
      .meta({ docs: "Stay on about:blank rather than go back to the last page." }),
    insecure: flag().optional().describe("Accept any TLS certificate. Gets no saved site data."),
    record: flag()
      .optional()
      .describe("Film the browser's whole life for a person to watch (costs the Grid).")
      .meta({
        docs: "Ask the Grid to record a video of this browser's whole life. Not inherited by the next browser; the video appears under workspace://files/recordings shortly after the browser ends.",
      }),
    capture: flag().optional().describe("Report console errors and failed requests in each result's `page`."),
    restore_site_data: flag(true)
      .describe("false: start as a new user (deletes the saved site data).")
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
  }),
  output: z.object({
    url: z.string().describe("The page the browser is on."),
    title: z.string(),
    browser: z.enum(["chrome", "firefox"]),
    width: z.number().int(),
    height: z.number().int(),
    settings: Settings,
    recording: z.boolean().describe("Whether this browser is being recorded."),
    recording_error: z.string().optional().describe("Why this recording cannot be filed, when it cannot."),
    site_data: SiteDataHint.optional(),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  browser: "open",
  handler: (ctx, input) => ctx.lifecycle.open(input),
});

export const endBrowser = defineAction({
  name: "end_browser",
  http: { method: "DELETE", path: "/browser" },
  title: "End the browser",
  description:
    "Quit this workspace's browser to free its Grid slot. History and saved site data stay; the next action opens a new browser on the last page.",
  docs: "Returns ended: false when there was no browser.",
  input: z.strictObject({}),
  output: z.object({ ended: z.boolean().describe("Whether a browser was quit.") }),
  annotations: { readOnly: false, destructive: false, idempotent: true },
  browser: "end",
  handler: (ctx) => ctx.lifecycle.end(),
});
