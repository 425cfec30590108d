// screenshot and print_page: the page as a picture (the viewport, the whole page, or one element)
// and as a PDF. A screenshot is filed under the workspace's screenshots when there is a data dir, and
// returned either way: over MCP as an image, over REST as the file entry with a signed link.
import type { WebDriver } from "selenium-webdriver";
import { z } from "zod";
import { FileEntrySchema } from "../files/schema.ts";
import { pageState } from "../grid/page.ts";
import { log } from "../log.ts";
import { errorKind } from "../recordings/collector.ts";
import { defineAction, flag, type McpContent, pageFields } from "./define.ts";
import { locate, Selector, timeoutField } from "./selectors.ts";

/** The PNG (base64) rides along on the result for the MCP image block; JSON never sees a symbol key. */
export const PNG = Symbol("png");
// Chromium draws nothing taller than this in one capture.
const MAX_FULL_PAGE = 16_384;

const ScreenshotResult = z.object({
  ...pageFields,
  file: FileEntrySchema.optional().describe(
    "The screenshot as filed under workspace://files/screenshots: its url shows it, keep_with keeps it. Absent without a data dir.",
  ),
  file_error: z.string().optional().describe("Why it was not filed, when filing failed."),
  content_type: z.literal("image/png"),
  width: z.number().int().describe("The image's width in pixels."),
  height: z.number().int().describe("The image's height in pixels."),
  data: z.string().optional().describe("The PNG as base64, only when it was not filed (REST, no data dir)."),
});

type Shot = z.infer<typeof ScreenshotResult> & { [PNG]?: string };

function pngSize(png: Uint8Array): { width: number; height: number } {
  const v = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return png.length >= 24 ? { width: v.getUint32(16), height: v.getUint32(20) } : { width: 0, height: 0 };
}

const MEASURE =
  "var d = document.documentElement, b = document.body; return [Math.max(d.scrollHeight, b ? b.scrollHeight : 0), window.innerHeight, window.scrollX, window.scrollY];";

/**
 * The whole page in classic WebDriver: grow the window to the page's height, capture, put it back.
 * (WebDriver has no full-page capture of its own, and this build speaks no CDP.)
 */
async function fullPage(driver: WebDriver): Promise<string> {
  const [height, inner, x, y] = (await driver.executeScript(MEASURE)) as number[];
  if (!(height! > inner!)) return driver.takeScreenshot();
  const win = driver.manage().window();
  const rect = await win.getRect();
  try {
    await driver.executeScript("window.scrollTo(0, 0)");
    const chrome = rect.height - inner!;
    await win.setRect({ width: rect.width, height: Math.min(height! + chrome, MAX_FULL_PAGE) });
    // A page that grew with the window (or lazily loaded more) gets one more look.
    const [after, innerAfter] = (await driver.executeScript(MEASURE)) as number[];
    if (after! > innerAfter! && innerAfter! + chrome < MAX_FULL_PAGE) {
      await win.setRect({ width: rect.width, height: Math.min(after! + chrome, MAX_FULL_PAGE) });
    }
    return await driver.takeScreenshot();
  } finally {
    await win.setRect(rect).catch(() => undefined);
    await driver.executeScript("window.scrollTo(arguments[0], arguments[1])", x, y).catch(() => undefined);
  }
}

export const screenshot = defineAction({
  name: "screenshot",
  http: { method: "POST", path: "/browser/screenshot" },
  title: "Take a screenshot",
  description: [
    "A PNG of the viewport, the whole page (full_page) or one element (selector), filed under workspace://files/screenshots and returned as an image.",
    "To show a person or check a visual detail; to read or act, read_page is cheaper.",
  ].join(" "),
  docs: [
    "read_page gives selectors to act on; a screenshot does not. keep_file keeps a screenshot for good.",
    "Over REST it returns the file entry, whose url shows it.",
  ].join(" "),
  input: z
    .strictObject({
      full_page: flag().optional().meta({ docs: "The whole page, not just what the window shows." }),
      selector: Selector.optional().describe("One element instead of the page."),
      timeout: timeoutField(),
    })
    .refine((i) => !(i.full_page && i.selector), "give full_page or selector, not both"),
  output: ScreenshotResult,
  annotations: { readOnly: true, destructive: false, idempotent: false },
  browser: "page",
  handler: async (ctx, input) => {
    const { driver } = ctx.browser;
    let base64: string;
    if (input.selector) {
      const el = await locate(driver, input.selector, {
        timeout: input.timeout,
        visible: true,
        scroll: true,
      });
      base64 = await el.takeScreenshot();
    } else if (input.full_page) {
      base64 = await fullPage(driver);
    } else {
      base64 = await driver.takeScreenshot();
    }
    const png = new Uint8Array(Buffer.from(base64, "base64"));
    const state = await pageState(driver);
    const out: Shot = { ...state, content_type: "image/png", ...pngSize(png) };
    const files = ctx.services.files;
    if (files.store) {
      try {
        out.file = await files.fileScreenshot(ctx.workspace, png);
      } catch (err) {
        log.warn(`workspace ${ctx.workspace}: a screenshot was not filed: ${errorKind(err)}`);
        out.file_error = `this screenshot was not filed: ${errorKind(err)}`;
        out.data = base64;
      }
    } else {
      out.data = base64;
    }
    out[PNG] = base64;
    return out;
  },
  mcpContent: (result): McpContent => {
    // Without the symbol (structuredContent is JSON) and without the base64 the image block carries.
    const { [PNG]: carried, data, ...structured } = result as Shot;
    const png = carried ?? data;
    return { blocks: png ? [{ type: "image", data: png, mimeType: "image/png" }] : [], structured };
  },
});

export const printPage = defineAction({
  name: "print_page",
  http: { method: "POST", path: "/browser/print" },
  title: "Print the page as PDF",
  description:
    "Print the page to a PDF into Files (workspace://files); returns the file entry (its url opens it). Needs a data dir.",
  docs: "The PDF is what the browser's own print makes. Its uri can go to upload_file.",
  input: z.strictObject({
    landscape: flag().optional().meta({ docs: "Landscape pages (default portrait)." }),
    background: flag(true).meta({ docs: "Print background colours and images (default true)." }),
    scale: z
      .number()
      .min(0.1)
      .max(2)
      .optional()
      .describe("Zoom (default 1).")
      .meta({ docs: "Zoom, 0.1 to 2 (default 1)." }),
    page_ranges: z
      .array(z.string().regex(/^\d+(-\d+)?$/, "must be a page or a range such as 2-4"))
      .max(100)
      .optional()
      .describe('Only these pages, e.g. ["1", "3-5"].'),
  }),
  output: z.object({ ...pageFields, file: FileEntrySchema }),
  annotations: { readOnly: true, destructive: false, idempotent: false },
  browser: "page",
  // Without a data dir there is nowhere to file it: refuse before a browser is opened.
  precheck: async ({ services }) => {
    services.files.disk();
  },
  handler: async (ctx, input) => {
    const { driver } = ctx.browser;
    const options: Record<string, unknown> = {
      orientation: input.landscape ? "landscape" : "portrait",
      background: input.background,
    };
    if (input.scale !== undefined) options.scale = input.scale;
    if (input.page_ranges) options.pageRanges = input.page_ranges;
    const base64 = (await driver.printPage(options as never)) as unknown as string;
    const state = await pageState(driver);
    const file = await ctx.services.files.filePrint(
      ctx.workspace,
      new Uint8Array(Buffer.from(base64, "base64")),
    );
    return { ...state, file };
  },
});
