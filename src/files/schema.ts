// The shapes files answer with, on every surface (MCP output schemas, OpenAPI).
import { z } from "zod";
import { FileEntrySchema } from "../actions/fields.ts";

/** An entry as a listing gives it: a download not finished says so; a PDF names its text. */
export const ListedEntrySchema = FileEntrySchema.extend({
  unfinished: z
    .literal(true)
    .optional()
    .describe(
      "A download not finished: still arriving, or held back by the browser (its name ends .crdownload or .part). Not the whole file; it cannot be kept.",
    ),
  text: z
    .string()
    .optional()
    .describe("A PDF's text, read in parts like read_page: the resource uri of its first part."),
});

export const FolderListSchema = z.object({
  uri: z.string().describe("This folder's uri."),
  files: z.array(ListedEntrySchema).describe("Newest first."),
});

export const FilesRootSchema = z.object({
  uri: z.string(),
  folders: z
    .array(
      z.object({
        name: z.enum(["files", "screenshots", "recordings", "downloads"]),
        uri: z.string(),
        count: z.number().int().nullable().describe("How many it holds; null when it cannot be counted."),
      }),
    )
    .describe("Files itself, then screenshots, recordings and downloads."),
  files: z
    .array(ListedEntrySchema)
    .describe("What is in Files itself (kept files and prints), newest first."),
  off: z.string().optional().describe("Present when this server keeps no files (no data.dir): why."),
});

export const PdfTextSchema = z.object({
  uri: z.string(),
  pages: z.number().int().describe("The PDF's pages."),
  part: z.number().int(),
  parts: z.number().int(),
  from_page: z.number().int().describe("The first page this part holds."),
  to_page: z.number().int().describe("The last page this part holds."),
  text: z.string(),
  next: z.string().optional().describe("The next part's uri; absent on the last."),
});
