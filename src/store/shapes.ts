// The shapes the record keeps that calls also answer with, declared once here (the store parses the
// record with them; actions and their results build on them): the settings a browser was opened
// with, and what a restore of site data did.
import { z } from "zod";

export const BrowserSettingsShape = z
  .object({
    browser: z.enum(["chrome", "firefox"]).optional(),
    width: z.number().int().optional(),
    height: z.number().int().optional(),
    viewport: z.object({ width: z.number().int(), height: z.number().int() }).optional(),
    insecure: z.boolean().optional(),
    capture: z.boolean().optional(),
    record: z.boolean().optional(),
    page_load_timeout: z.number().optional(),
    script_timeout: z.number().optional(),
    policy: z
      .object({
        allow: z.array(z.string()).optional(),
        block: z.array(z.string()).optional(),
        private: z.boolean().optional(),
      })
      .optional(),
    proxy: z.string().optional(),
    routes: z
      .array(
        z.object({
          url: z.string(),
          status: z.number().int().optional(),
          headers: z.record(z.string(), z.string()).optional(),
          body: z.string().optional(),
          block: z.boolean().optional(),
        }),
      )
      .optional(),
    offline: z.boolean().optional(),
    emulate: z
      .object({
        locale: z.string().optional(),
        timezone: z.string().optional(),
        user_agent: z.string().optional(),
        geolocation: z
          .object({ latitude: z.number(), longitude: z.number(), accuracy: z.number().optional() })
          .optional(),
        media: z.record(z.string(), z.string()).optional(),
      })
      .optional(),
  })
  .describe("What this browser was opened with; a replacement opens the same way.");

export const SiteDataHint = z
  .object({
    restored: z
      .array(z.string())
      .optional()
      .describe(
        "Each host whose saved cookies or storage are in the browser now (app.example.com). All of it is in place before the call returns.",
      ),
    forgotten: z.number().int().optional().describe("Sites deleted because restore_site_data was false."),
    skipped: z
      .array(
        z.object({
          cookie: z.string().optional().describe("A cookie's name."),
          domain: z.string().optional().describe("Its domain."),
          site: z.string().optional().describe("An origin whose storage did not come back."),
          reason: z.string(),
        }),
      )
      .optional()
      .describe("Items that could not be restored, each with a reason."),
    uri: z.string().optional().describe("Where to read what is saved."),
  })
  .describe("Present only when site data was restored, skipped or forgotten in this call.")
  .meta({ shared: true });
