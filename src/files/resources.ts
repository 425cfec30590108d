// workspace://files and its folders: what a workspace has kept, the screenshots and recordings the
// server made, and what its browser downloaded. Reading an item answers its bytes (a recording
// answers its entry: a model cannot watch a video, and a resource would carry it as base64).

import { FileEntrySchema } from "../actions/fields.ts";
import { defineResource, type ResourceDef } from "../actions/resource.ts";
import { FilesRootSchema, FolderListSchema, PdfTextSchema } from "./schema.ts";
import type { Files } from "./service.ts";
import { folderUri, KEEP_TOOL, ROOT_URI, type Subfolder } from "./uris.ts";

/** What a file resource reads: the workspace's files. */
type Reads = { readonly files: Files };

const WHOLE = () => new Request("http://selenium-flow.invalid/");

const root = defineResource<Reads>({
  uri: ROOT_URI,
  name: "files",
  title: "Files",
  description: [
    "This workspace's files. `files` is Files itself: what was kept (keep_file) and every print_page. `folders` lists Files and its three folders with counts:",
    "workspace://files/screenshots (what screenshot took), workspace://files/recordings (videos of browsers opened with record=true) and workspace://files/downloads (what the browser downloaded, while it lives).",
    `Screenshots and recordings are cleared by the admin; ${KEEP_TOOL}(uri) keeps one for good. Every entry's url is a signed link a person can open.`,
    "Reading workspace://files/<name> answers that file's bytes; workspace://files/screenshots/<name> and workspace://files/downloads/<name> likewise, workspace://files/recordings/<name> for a recording (its entry).",
  ].join(" "),
  http: "/files",
  output: FilesRootSchema,
  read: (services, workspace) => services.files.root(workspace),
});

const FOLDERS: Record<Subfolder, { title: string; description: string }> = {
  screenshots: {
    title: "Screenshots",
    description: `This workspace's screenshots, newest first: every one the screenshot tool took. ${KEEP_TOOL}(uri) moves one into ${ROOT_URI} to keep it; the rest are cleared by the admin. Each entry's url shows it; reading one by its uri answers the image.`,
  },
  recordings: {
    title: "Recordings",
    description: `This workspace's recordings: one video per browser opened with open_session(record=true), filed shortly after that browser ends. ${KEEP_TOOL}(uri) moves one into ${ROOT_URI}. Each entry's url plays it; reading one by its uri answers that entry, not the video.`,
  },
  downloads: {
    title: "Downloads",
    description: `What this workspace's browser downloaded (a link with a download, a file the page sent), newest first. They live on the Grid with the browser and go when it ends: ${KEEP_TOOL}(uri) copies one into ${ROOT_URI} to keep it. Reading one by its uri answers its bytes.`,
  },
};

// The REST listing of recordings as the reference publishes it.
const LIST_RECORDINGS = {
  operationId: "listRecordings",
  summary: "This workspace's recordings, not yet kept.",
  description:
    "Newest first. One video per browser opened with record=true, filed shortly after it ended. Works after the browser is gone.",
};

function folder(name: Subfolder): ResourceDef<Reads> {
  return defineResource<Reads>({
    uri: folderUri(name),
    name: name === "recordings" ? "Recordings" : name,
    title: FOLDERS[name].title,
    description: FOLDERS[name].description,
    http: `/files/${name}`,
    openapi: name === "recordings" ? LIST_RECORDINGS : undefined,
    output: FolderListSchema,
    read: async (services, workspace) => ({
      uri: folderUri(name),
      files: await services.files.list(workspace, name),
    }),
  });
}

const screenshot = defineResource<Reads>({
  uri: `${folderUri("screenshots")}/{name}`,
  name: "screenshot",
  title: "A screenshot",
  description: `One screenshot from ${folderUri("screenshots")}: the PNG itself.`,
  http: "/files/screenshots/{name}",
  mimeType: "image/png",
  read: (services, workspace, p) => services.files.serve(WHOLE(), workspace, "screenshots", p.name!, 0),
});

const recording = defineResource<Reads>({
  uri: `${folderUri("recordings")}/{name}`,
  name: "Recording",
  title: "Recording",
  description: `One recording from ${folderUri("recordings")}, described: its url plays it. Not the video's bytes — a model cannot watch one, and a resource would carry it as base64.`,
  http: "/files/recordings/{name}",
  output: FileEntrySchema,
  read: (services, workspace, p) => services.files.item(workspace, "recordings", p.name!),
});

const download = defineResource<Reads>({
  uri: `${folderUri("downloads")}/{name}`,
  name: "download",
  title: "A download",
  description: `One file from ${folderUri("downloads")}: its bytes (text as text).`,
  http: "/files/downloads/{name}",
  mimeType: "application/octet-stream",
  read: (services, workspace, p) => services.files.serve(WHOLE(), workspace, "downloads", p.name!, 0),
});

/** A PDF's text in parts, from downloads or Files (prints, kept files). */
function pdfText(folder: "downloads" | "files"): ResourceDef<Reads> {
  const base = folder === "files" ? ROOT_URI : folderUri(folder);
  return defineResource<Reads>({
    uri: `${base}/{name}/text/{part}`,
    name: folder === "files" ? "file-text" : "download-text",
    title: folder === "files" ? "A kept PDF's text" : "A downloaded PDF's text",
    description: `The text of a PDF in ${base}, in parts about as long as read_page's, from part 1 (an entry's text gives it); next is the following part's uri. An unfinished download is a 409 until it finishes.`,
    http: `${folder === "files" ? "/files" : "/files/downloads"}/{name}/text/{part}`,
    output: PdfTextSchema,
    read: (services, workspace, p) => services.files.texts.part(workspace, folder, p.name!, Number(p.part)),
  });
}

// Last: its {name} would otherwise take a folder's uri.
const kept = defineResource<Reads>({
  uri: `${ROOT_URI}/{name}`,
  name: "file",
  title: "A kept file",
  description: `One file in Files (${ROOT_URI}): its bytes (text as text).`,
  http: "/files/{name}",
  mimeType: "application/octet-stream",
  read: (services, workspace, p) => services.files.serve(WHOLE(), workspace, "files", p.name!, 0),
});

export const fileResources: readonly ResourceDef<Reads>[] = [
  root,
  folder("screenshots"),
  folder("recordings"),
  folder("downloads"),
  screenshot,
  recording,
  download,
  pdfText("downloads"),
  pdfText("files"),
  kept,
];
