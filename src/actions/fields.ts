// The shapes many actions share (the page fields, the site-data and page reports, URLs and flags).
// It imports only zod and the store's own shapes, so any module above the store may declare its own
// shapes on top of these.
import { z } from "zod";
import { SiteDataHint } from "../store/shapes.ts";

export const SITE_DATA_URI = "workspace://site-data";

/** An element's box in its viewport, CSS pixels (read_page's boxes, extract's get box). */
export const Box = z
  .object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() })
  .describe("Its box in the viewport: x, y, width, height in CSS pixels.")
  .meta({ shared: true });

export const PageReport = z
  .object({
    console_errors: z
      .array(z.object({ text: z.string(), source: z.string().optional() }))
      .optional()
      .describe("Errors the page logged to its console during the call."),
    failed_requests: z
      .array(
        z.object({
          url: z.string(),
          status: z
            .number()
            .int()
            .optional()
            .describe("The HTTP status (>= 400); absent for a network error."),
          error: z.string().optional().describe("The network error, when there was no response."),
        }),
      )
      .optional()
      .describe("Requests that failed during the call: HTTP >= 400 or a network error."),
    omitted: z
      .object({ console_errors: z.number().int().optional(), failed_requests: z.number().int().optional() })
      .optional()
      .describe("How many more there were beyond the first 20 of each, left out to keep the result short."),
  })
  .describe(
    "Present only when this browser was opened with capture=true and the page reported a failure while the call ran. The logs tool reads more.",
  )
  .meta({ shared: true });

/** Every page action answers with at least these. */
export const pageFields = {
  url: z.string().describe("The page's URL after the action."),
  title: z.string().describe("The page's title after the action."),
  site_data: SiteDataHint.optional(),
  page: PageReport.optional(),
};

export const PageResult = z.object(pageFields);

/** Limits that keep a body's fields sane (the whole body is capped at 1 MiB). */
export const MAX_URL = 8192;
export const webUrl = () =>
  z
    .string()
    .max(MAX_URL)
    .refine((u) => {
      try {
        // Which schemes may load is navigate.allow_schemes' to say (Page.goto).
        return /^[a-z][a-z0-9+.-]*:/i.test(u) && new URL(u).protocol.length > 1;
      } catch {
        return false;
      }
    }, "must be an absolute URL such as https://app.example.test/");

const asBool = (v: unknown) => (v === "true" ? true : v === "false" ? false : v);

/** A boolean that also takes "true"/"false" (hand-written JSON). With a default, the schema shows it. */
export function flag(fallback?: boolean) {
  return fallback === undefined
    ? z.preprocess(asBool, z.boolean())
    : z.preprocess(asBool, z.boolean().default(fallback));
}

/** One stored file, as files/ lists it and as a screenshot or a print answers it. */
export const FileEntrySchema = z
  .object({
    name: z.string().describe("The file's name in its folder."),
    uri: z.string().describe("Its workspace:// uri: what keep_file and upload_file take."),
    url: z
      .string()
      .describe(
        "A signed link to its bytes, relative to this server, that needs no token and expires (files.link_ttl). Hand it to a person or fetch it.",
      ),
    content_type: z.string().describe("Its type, from its name (image/png, application/pdf, video/mp4...)."),
    size: z.number().int().nullable().describe("Bytes; null when the Grid did not say."),
    image: z.boolean().describe("Whether it is a picture a page can show."),
    keep_with: z
      .string()
      .nullable()
      .describe(
        'The call that keeps it into Files, e.g. keep_file("workspace://files/screenshots/<name>"); null in Files.',
      ),
    modified: z.string().nullable().describe("When it was last written (ISO 8601, UTC), when known."),
  })
  .describe("One stored file.")
  .meta({ shared: true });
