// keep_file and upload_file: keeping what the workspace made or downloaded into Files, and putting a
// file into a page's file input through the Grid (so it works on a remote Grid too).
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import { FileEntrySchema, pageFields } from "../actions/fields.ts";
import { quoteSelector } from "../browser/failures.ts";
import { type PageMatch, Selector, seek, timeoutField } from "../browser/selectors.ts";
import { badInput, tooLarge } from "../errors.ts";
import type { NodeRef } from "../grid/page-call.ts";
import { objectBody } from "../http/body.ts";
import { fileNameProblem } from "./file-names.ts";
import { KEEP_TOOL, ROOT_URI, UPLOAD_CAP } from "./uris.ts";

const MIB = 1024 * 1024;

export const keepFile = defineAction({
  name: KEEP_TOOL,
  http: {
    method: "POST",
    path: "/files/keep",
    summary: "Moves a screenshot or a recording into Files, or copies a download there.",
  },
  title: "Keep a file",
  description: [
    `Keep a screenshot, recording or download in Files (${ROOT_URI}): a download is copied, the others move; nothing is overwritten.`,
    "Pass its listing's uri.",
  ].join(" "),
  docs: [
    "Downloads go when the browser ends. A name Files already has lands as `name (1).ext`.",
    "Returns the kept file's entry: its new uri and a url a person can open.",
  ].join(" "),
  input: z.strictObject({
    uri: z
      .string()
      .min(1)
      .max(2048)
      .describe("workspace://files/{screenshots,recordings,downloads}/<name>")
      .meta({
        docs: "workspace://files/screenshots/<name>, workspace://files/recordings/<name> or workspace://files/downloads/<name>.",
      }),
  }),
  output: FileEntrySchema,
  annotations: { readOnly: false, destructive: false, idempotent: false },
  browser: "none",
  handler: (ctx, input) => ctx.services.files.keep(ctx.workspace, input.uri),
});

interface FileInput extends PageMatch {
  input?: NodeRef;
  problem?: string;
  disabled?: boolean;
  multiple?: boolean;
}

/** The input from a multipart upload (`file`, and `selector` as JSON text), or from the JSON body. */
async function uploadFields(body: unknown): Promise<Record<string, unknown>> {
  if (!(body instanceof FormData))
    return objectBody(body, "the body must be a JSON object, or multipart/form-data with a file");
  const form = body;
  const out: Record<string, unknown> = {};
  for (const [key, entry] of form.entries()) {
    const value = entry as string | File;
    if (typeof value !== "string") {
      if (key !== "file") throw badInput(`the form part "${key}" is a file: send the file as "file"`, key);
      if (value.size > UPLOAD_CAP) {
        throw tooLarge(`the file is over the upload cap of 64 MiB: send less`);
      }
      out.file = {
        name: value.name || "upload",
        data: Buffer.from(await value.arrayBuffer()).toString("base64"),
      };
    } else if (key === "selector") {
      try {
        out.selector = JSON.parse(value);
      } catch {
        throw badInput('the form field "selector" must be JSON, e.g. {"css": "#avatar"}', "selector");
      }
    } else if (key === "timeout") {
      out.timeout = Number(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}

export const uploadFile = defineAction({
  name: "upload_file",
  http: {
    method: "POST",
    path: "/browser/upload",
    takes: ["multipart"],
    // The cap is the file's; the form's other fields and boundaries get a little room.
    caps: { multipart: { bytes: UPLOAD_CAP + MIB, what: "upload (64 MiB)" } },
    fromBody: uploadFields,
  },
  title: "Upload a file",
  description: [
    "Put a workspace file (uri) into a file input as a person would; then submit the form yourself.",
  ].join(" "),
  docs: [
    `The uri is ${ROOT_URI}/<name>, or a screenshot, recording or download. Hidden inputs behind a styled button work.`,
    'Over REST the file can also be sent as multipart/form-data ("file", with "selector" as JSON text), at most 64 MiB.',
    "Returns the page's url and title, the file put in, and every name the input now holds.",
  ].join(" "),
  input: z
    .strictObject({
      selector: Selector.describe(
        "The file input, its label, or an element holding one (hidden inputs work).",
      ),
      uri: z
        .string()
        .min(1)
        .max(2048)
        .optional()
        .describe(`${ROOT_URI}/<name> or ${ROOT_URI}/<folder>/<name>`)
        .meta({ docs: `A workspace file: ${ROOT_URI}/<name> or ${ROOT_URI}/<folder>/<name>.` }),
      files: z
        .array(z.string().min(1).max(2048))
        .max(20)
        .optional()
        .describe("Uris, for a multiple input.")
        .meta({
          docs: "Instead of uri: several workspace files (uris) at once, for an input with `multiple`.",
        }),
      file: z
        .strictObject({
          name: z.string().min(1).max(255).meta({ docs: "The name the page sees." }),
          data: z.string().meta({ docs: "The bytes, base64." }),
        })
        .optional()
        .describe("Instead of uri: the name and base64 data.")
        .meta({ docs: "The file itself: what a multipart upload fills in over REST. Prefer uri." }),
      timeout: timeoutField(),
    })
    .refine(
      (i) => [i.uri, i.files, i.file].filter((g) => g !== undefined).length === 1 && i.files?.length !== 0,
      "give exactly one of uri, files or file",
    ),
  output: z.object({
    ...pageFields,
    uploaded: z.object({ name: z.string(), size: z.number().int() }).describe("The file put in (the first)."),
    files: z.array(z.string()).describe("Every file name the input holds now."),
  }),
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  browser: "page",
  handler: async (ctx, input) => {
    const { id } = ctx.browser;
    const page = await ctx.browser.page();
    const chosen: { name: string; data: Uint8Array }[] = [];
    if (input.uri !== undefined || input.files !== undefined) {
      for (const uri of input.files ?? [input.uri as string])
        chosen.push(await ctx.services.files.read(ctx.workspace, uri));
    } else {
      const given = input.file!;
      const name = given.name.split(/[/\\]/).pop() ?? "";
      if (fileNameProblem(name))
        throw badInput(`field "file.name" is not a file name: ${fileNameProblem(name)}`, "file.name");
      if (given.data.length > Math.ceil((UPLOAD_CAP * 4) / 3) + 4)
        throw tooLarge("the file is over the upload cap of 64 MiB: send less");
      chosen.push({ name, data: new Uint8Array(Buffer.from(given.data, "base64")) });
    }
    const got = await seek<FileInput>(
      page,
      input.selector,
      { timeout: input.timeout, visible: false },
      "fileTarget",
    );
    if (!got.input) {
      throw badInput(
        `${quoteSelector(input.selector)} matched a ${got.problem ?? "element"}, not a file input: name the <input type="file">, its label, or an element holding exactly one`,
        "selector",
      );
    }
    if (got.disabled)
      throw badInput(`the file input ${quoteSelector(input.selector)} matched is disabled`, "selector");
    if (chosen.length > 1 && !got.multiple) {
      throw badInput(
        `the file input ${quoteSelector(input.selector)} matched takes one file (it has no multiple): give one uri`,
        "files",
      );
    }
    const remote: string[] = [];
    for (const { name, data } of chosen) remote.push(await ctx.services.grid.upload(id, name, data));
    await page.setFiles(got.input, remote);
    const files = (await page
      .callIn<string[]>(got.input.context, "chosenFiles", got.input)
      .catch(() => [])) as string[];
    const state = await page.state(page.context);
    const [first] = chosen.map(({ name, data }) => ({ name, size: data.length }));
    return { ...state, uploaded: first!, files: Array.isArray(files) ? files : [] };
  },
});
