// The workspace:// addresses of files: the folders, an entry's shape, URIs and their parsing, name checks.
import type { z } from "zod";
import type { FileEntrySchema } from "../actions/fields.ts";
import { type AppError, badInput, notFound } from "../errors.ts";
import { repr } from "../kit/names.ts";
import { fileNameProblem } from "./file-names.ts";
import type { FilesRootSchema, ListedEntrySchema } from "./schema.ts";
import { RESERVED_IN_FILES } from "./store-folders.ts";

export const ROOT_URI = "workspace://files";
export type Folder = "files" | "screenshots" | "recordings" | "downloads";
/** The folders under Files, in the order the root lists them. */
export const SUBFOLDERS = ["screenshots", "recordings", "downloads"] as const;
export type Subfolder = (typeof SUBFOLDERS)[number];
export const KEEP_TOOL = "keep_file";
/** The upload cap, and the most a file may weigh to be put into a file input. */
export const UPLOAD_CAP = 64 * 1024 * 1024;

/** A download the browser has not finished (Chrome's .crdownload, Firefox's .part). */
export const UNFINISHED = /\.(crdownload|part)$/i;

/** Why an unfinished download cannot be kept or read yet. */
export const unfinishedText = (uri: string) =>
  `${uri} is a download the browser has not finished: it is still arriving, or the browser held it back (Chrome does so with a download it finds insecure, an http: file from an https: page). List workspace://files/downloads again in a moment; one that stays unfinished will not finish`;

export const FILES_OFF =
  "files are off on this server: set data.dir (DATA_DIR) to keep screenshots, prints, recordings and kept files";

export const KIND: Record<Folder, string> = {
  files: "file",
  screenshots: "screenshot",
  recordings: "recording",
  downloads: "download",
};

/** One stored file, as every surface shows it (schema.ts declares it). */
export type FileEntry = z.infer<typeof FileEntrySchema>;
/** An entry in a listing: a download not finished, a PDF's text. */
export type ListedEntry = z.infer<typeof ListedEntrySchema>;

/** A folder in the files root's listing. */
export type FolderSummary = z.infer<typeof FilesRootSchema>["folders"][number];

export function folderUri(folder: Folder): string {
  return folder === "files" ? ROOT_URI : `${ROOT_URI}/${folder}`;
}

export function uriOf(folder: Folder, name: string): string {
  return `${folderUri(folder)}/${encodeURIComponent(name)}`;
}

/** `workspace://files/<name>` (Files) or `workspace://files/<folder>/<name>`. */
export function parseUri(uri: string): { folder: Folder; name: string } {
  const how = `give a file's uri as a listing shows it: ${ROOT_URI}/<name> or ${ROOT_URI}/<folder>/<name>`;
  if (!uri.startsWith(`${ROOT_URI}/`)) throw badInput(`not a file's uri: ${how}`, "uri");
  const parts = uri.slice(ROOT_URI.length + 1).split("/");
  let folder: Folder;
  let raw: string;
  if (parts.length === 1) {
    if (RESERVED_IN_FILES.has(parts[0]!)) throw badInput(`${uri} is a folder, not a file: ${how}`, "uri");
    [folder, raw] = ["files", parts[0]!];
  } else if (parts.length === 2 && (SUBFOLDERS as readonly string[]).includes(parts[0]!)) {
    [folder, raw] = [parts[0] as Folder, parts[1]!];
  } else {
    throw badInput(`not a file's uri: ${how}`, "uri");
  }
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    throw badInput(`the name in ${uri} is not valid percent-encoding`, "uri");
  }
  const problem = fileNameProblem(name);
  if (problem) throw badInput(`not a file's uri: ${problem}`, "uri");
  return { folder, name };
}

/** A name no file of `folder` can have ('.', '..', a '/') is a 400, not a miss. */
export function checkName(folder: Folder, name: string): void {
  const problem =
    folder === "downloads"
      ? name === "." || name === ".." || name.includes("/")
        ? "a file name is not '.' or '..' and has no '/'"
        : null
      : fileNameProblem(name);
  if (problem) throw badInput(`${repr(name)} is not a file name: ${problem}`, "name");
}

/** The 404 for a file a folder does not hold. */
export function missingFile(folder: Folder, name: string): AppError {
  return notFound(`no ${KIND[folder]} called ${repr(name)}. ${folderUri(folder)} lists them`);
}

export function stamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace("T", "-")
    .replace(/\.\d+Z$/, "");
}
