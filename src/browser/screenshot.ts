// screenshot and print_page: the page as a picture (the viewport, the whole page, or one element)
// and as a PDF. A screenshot is filed under the workspace's screenshots when there is a data dir, and
// returned either way: over MCP as an image, over REST as the file entry with a signed link.
import { z } from "zod";
import { type McpContent, PNG } from "../actions/action.ts";
import { defineAction } from "../actions/define.ts";
import { FileEntrySchema, flag, pageFields } from "../actions/fields.ts";
import { badInput } from "../errors.ts";
import type { Page } from "../grid/page.ts";
import type { NodeRef } from "../grid/page-call.ts";
import { errorKind } from "../kit/error-kind.ts";
import { locate, Selector, timeoutField } from "./selectors.ts";

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

/** One element, the viewport or the whole document, as the browser draws it (BiDi). */
async function capture(page: Page, opts: { el?: NodeRef; full?: boolean }): Promise<string> {
  const tab = page.where.tab;
  if (opts.el && opts.el.context !== tab) {
    const box = await page.callIn<{ x: number; y: number; width: number; height: number } | null>(
      opts.el.context,
      "boxInTop",
      opts.el,
    );
    if (!box)
      throw badInput(
        "this element is inside a frame from another site, which cannot be cut out: take the viewport instead",
      );
    return (
      await page.send("browsingContext.captureScreenshot", { context: tab, clip: { type: "box", ...box } })
    ).data;
  }
  if (opts.el) {
    const element = { sharedId: opts.el.sharedId };
    return (
      await page.send("browsingContext.captureScreenshot", {
        context: tab,
        // The element's place in the document: one below the first screen is past the viewport.
        origin: "document",
        clip: { type: "element", element },
      })
    ).data;
  }
  return (
    await page.send("browsingContext.captureScreenshot", {
      context: tab,
      origin: opts.full ? "document" : "viewport",
    })
  ).data;
}

export const screenshot = defineAction({
  name: "screenshot",
  http: { method: "POST", path: "/browser/screenshot" },
  title: "Take a screenshot",
  description: [
    "A PNG of the viewport, the whole page (full_page) or one element (selector), filed in workspace://files/screenshots.",
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
    const page = await ctx.browser.page();
    const el = input.selector
      ? await locate(page, input.selector, { timeout: input.timeout, visible: true, scroll: true })
      : undefined;
    const base64 = await capture(page, { el, full: input.full_page === true });
    const png = new Uint8Array(Buffer.from(base64, "base64"));
    const state = await page.state();
    const out: Shot = { ...state, content_type: "image/png", ...pngSize(png) };
    const files = ctx.services.files;
    if (files.store) {
      try {
        out.file = await files.fileScreenshot(ctx.workspace, png);
      } catch (err) {
        ctx.services.log.warn(`workspace ${ctx.workspace}: a screenshot was not filed: ${errorKind(err)}`);
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
  description: "Print the page to a PDF in Files (workspace://files); returns its entry. Needs a data dir.",
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
    const page = await ctx.browser.page();
    const printed = await page.send(
      "browsingContext.print",
      {
        context: page.where.tab,
        orientation: input.landscape ? "landscape" : "portrait",
        background: input.background,
        ...(input.scale !== undefined ? { scale: input.scale } : {}),
        ...(input.page_ranges ? { pageRanges: input.page_ranges } : {}),
      },
      { timeoutMs: 120_000 },
    );
    const base64 = printed.data;
    const state = await page.state();
    const file = await ctx.services.files.filePrint(
      ctx.workspace,
      new Uint8Array(Buffer.from(base64, "base64")),
    );
    return { ...state, file };
  },
});
