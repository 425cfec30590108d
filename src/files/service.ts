// A workspace's files on every surface: Files itself (kept files and prints), Screenshots and
// Recordings on disk, and Downloads, which are the Grid's. MCP resources, REST GETs, the keep_file
// and upload_file actions and the admin routes all answer from here, so an entry reads the same
// everywhere.
import { badInput, conflict, notFound, tooLarge } from "../errors.ts";
import type { Grid } from "../grid/webdriver.ts";
import type { GridDownload } from "../grid/webdriver-files.ts";
import { contentType, isImage } from "../kit/file-types.ts";
import { InvalidName, repr } from "../kit/names.ts";
import type { Log } from "../log.ts";
import type { RecordStore } from "../store/types.ts";
import type { DiskFolder } from "./layout.ts";
import type { LinkSigner } from "./links.ts";
import { PdfTexts } from "./pdf-text.ts";
import { serveDisk, serveStream } from "./serve.ts";
import type { FileStore } from "./store.ts";
import { codeOf, openNoFollow, type StoredFile } from "./store-disk.ts";
import {
  checkName,
  FILES_OFF,
  type FileEntry,
  type Folder,
  type FolderSummary,
  folderUri,
  KEEP_TOOL,
  KIND,
  type ListedEntry,
  missingFile,
  parseUri,
  ROOT_URI,
  SUBFOLDERS,
  stamp,
  UNFINISHED,
  UPLOAD_CAP,
  unfinishedText,
  uriOf,
} from "./uris.ts";

export interface FilesServiceNeeds {
  store: FileStore | null;
  links: LinkSigner;
  grid: Grid;
  records: RecordStore;
  /** Epoch seconds. */
  now: () => number;
  /** A workspace's files changed outside an action's settle (admin live updates). */
  changed: (workspace: string) => void;
  log: Pick<Log, "info">;
}

export class Files {
  readonly store: FileStore | null;
  readonly links: LinkSigner;
  /** PDFs' text, in parts. */
  readonly texts: PdfTexts;

  constructor(private readonly needs: FilesServiceNeeds) {
    this.store = needs.store;
    this.links = needs.links;
    this.texts = new PdfTexts(this);
  }

  /** The disk folders, or the 400 that names data.dir. */
  disk(): FileStore {
    if (!this.store) throw badInput(FILES_OFF);
    return this.store;
  }

  entry(
    workspace: string,
    folder: Folder,
    f: { name: string; size: number | null; modified: number | null },
  ): FileEntry {
    const uri = uriOf(folder, f.name);
    return {
      name: f.name,
      uri,
      url: this.links.sign(workspace, folder, f.name),
      content_type: contentType(f.name),
      size: f.size,
      image: isImage(f.name),
      keep_with: folder === "files" ? null : `${KEEP_TOOL}(${JSON.stringify(uri)})`,
      modified: f.modified === null ? null : new Date(f.modified).toISOString(),
    };
  }

  /** An entry as a listing gives it: a download not finished says so (and cannot be kept); a PDF names its text. */
  listed(
    workspace: string,
    folder: Folder,
    f: { name: string; size: number | null; modified: number | null },
  ): ListedEntry {
    const entry = this.entry(workspace, folder, f);
    const unfinished = folder === "downloads" && UNFINISHED.test(f.name);
    const pdf =
      !unfinished &&
      contentType(f.name) === "application/pdf" &&
      (folder === "downloads" || folder === "files");
    if (unfinished) {
      return {
        ...entry,
        content_type: contentType(f.name.replace(UNFINISHED, "")),
        keep_with: null,
        unfinished: true,
      };
    }
    if (!pdf) return entry;
    void this.texts.warm();
    return { ...entry, text: `${entry.uri}/text/1` };
  }

  /** One folder's entries, newest first. */
  async list(workspace: string, folder: Folder): Promise<ListedEntry[]> {
    if (folder === "downloads") {
      return (await this.downloads(workspace)).map((d) => this.listed(workspace, "downloads", d));
    }
    const files = await this.disk().list(workspace, folder);
    return files.map((f) => this.listed(workspace, folder, f));
  }

  /** The root: Files' own entries, and every folder with its count (null where it cannot be counted). */
  async root(
    workspace: string,
  ): Promise<{ uri: string; folders: FolderSummary[]; files: FileEntry[]; off?: string }> {
    const counts = await this.counts(workspace);
    const folders: FolderSummary[] = (["files", ...SUBFOLDERS] as Folder[]).map((name) => ({
      name,
      uri: folderUri(name),
      count: counts[name],
    }));
    const out: { uri: string; folders: FolderSummary[]; files: FileEntry[]; off?: string } = {
      uri: ROOT_URI,
      folders,
      files: this.store ? await this.list(workspace, "files") : [],
    };
    if (!this.store) out.off = FILES_OFF;
    return out;
  }

  /** Counts per folder: null without a data dir (downloads: when the Grid would not say). */
  async counts(workspace: string): Promise<Record<Folder, number | null>> {
    return (await this.summary(workspace)).counts;
  }

  /** Counts, and a revision over every listing (names, sizes, times) so a page repaints only what changed. */
  async summary(workspace: string): Promise<{ counts: Record<Folder, number | null>; revision: string }> {
    type Row = [string, number | null, number | null];
    const disk = async (folder: DiskFolder): Promise<Row[] | null> =>
      this.store ? (await this.store.list(workspace, folder)).map((f) => [f.name, f.size, f.modified]) : null;
    const [files, screenshots, recordings, downloads] = await Promise.all([
      disk("files"),
      disk("screenshots"),
      disk("recordings"),
      this.downloads(workspace)
        .then((d): Row[] => d.map((f) => [f.name, f.size, f.modified]))
        .catch(() => null),
    ]);
    const lists = { files, screenshots, recordings, downloads };
    const counts = Object.fromEntries(
      Object.entries(lists).map(([k, v]) => [k, v ? v.length : null]),
    ) as Record<Folder, number | null>;
    const revision = new Bun.CryptoHasher("sha1").update(JSON.stringify(lists)).digest("hex").slice(0, 16);
    return { counts, revision };
  }

  /** One entry, or 404. */
  async item(workspace: string, folder: Folder, name: string): Promise<FileEntry> {
    checkName(folder, name);
    const found = await this.find(workspace, folder, name);
    if (!found) throw missingFile(folder, name);
    return this.entry(workspace, folder, found);
  }

  /** One file's bytes as an HTTP answer (Range on disk files), or 404. */
  async serve(
    request: Request,
    workspace: string,
    folder: Folder,
    name: string,
    maxAge: number,
  ): Promise<Response> {
    const missing = () => missingFile(folder, name);
    checkName(folder, name);
    if (folder === "downloads") {
      const got = await this.download(workspace, name);
      if (!got) throw missing();
      return serveStream(got.body, name, maxAge, got.size);
    }
    const found = await this.disk().find(workspace, folder, name);
    if (!found) throw missing();
    const res = await serveDisk(request, found.path, name, maxAge);
    if (!res) throw missing();
    return res;
  }

  /**
   * Keeps a file into Files: a screenshot or a recording moves there, a download is copied. Never
   * overwrites (`name (1).ext`), never takes a folder's name.
   */
  async keep(workspace: string, uri: string): Promise<FileEntry> {
    const { folder, name } = parseUri(uri);
    if (folder === "files") throw badInput(`${uri} is in Files already: nothing to keep`, "uri");
    const store = this.disk();
    let landed: StoredFile;
    if (folder === "downloads") {
      if (UNFINISHED.test(name)) throw conflict(unfinishedText(uri));
      const got = await this.download(workspace, name);
      if (!got) {
        throw notFound(
          `no download called ${repr(name)}: its browser may have ended. ${folderUri("downloads")} lists what there is`,
        );
      }
      landed = await store.writeStream(workspace, "files", name, got.body);
    } else {
      const gone = () =>
        notFound(
          `no ${KIND[folder]} called ${repr(name)}: it may be kept already or cleared. ${folderUri(folder)} lists what there is`,
        );
      const found = await store.find(workspace, folder, name);
      if (!found) throw gone();
      try {
        landed = await store.moveIn(workspace, found.path, name, "files");
      } catch (err) {
        if (codeOf(err) === "ENOENT") throw gone();
        throw err;
      }
    }
    this.needs.log.info(`kept ${uri} as ${workspace}/${landed.name}`);
    this.needs.changed(workspace);
    return this.entry(workspace, "files", landed);
  }

  /** Deletes every screenshot or every recording (admin only); the count. */
  async clear(workspace: string, folder: "screenshots" | "recordings"): Promise<number> {
    const n = await this.disk().clear(workspace, folder);
    if (n) this.needs.changed(workspace);
    return n;
  }

  /** Deletes one kept file (admin only); 404 when it is not there. */
  async deleteKept(workspace: string, name: string): Promise<void> {
    checkName("files", name);
    if (!(await this.disk().remove(workspace, "files", name))) {
      throw notFound(`no file called ${repr(name)}. ${ROOT_URI} lists them`);
    }
    this.needs.changed(workspace);
  }

  /** Files a screenshot under the workspace's Screenshots; the name carries only the time. */
  async fileScreenshot(workspace: string, png: Uint8Array): Promise<FileEntry> {
    const saved = await this.disk().write(
      workspace,
      "screenshots",
      `screenshot-${stamp(this.needs.now() * 1000)}.png`,
      png,
    );
    return this.entry(workspace, "screenshots", saved);
  }

  /** Files a print into Files. */
  async filePrint(workspace: string, pdf: Uint8Array): Promise<FileEntry> {
    const saved = await this.disk().write(
      workspace,
      "files",
      `page-${stamp(this.needs.now() * 1000)}.pdf`,
      pdf,
    );
    return this.entry(workspace, "files", saved);
  }

  /** A workspace file's name and bytes, for a file input (at most the upload cap). */
  async read(workspace: string, uri: string): Promise<{ name: string; data: Uint8Array }> {
    const { folder, name } = parseUri(uri);
    const missing = () => missingFile(folder, name);
    const over = () => tooLarge(`${uri} is over the ${UPLOAD_CAP / 1024 / 1024} MiB a file input takes here`);
    if (folder === "downloads") {
      const got = await this.download(workspace, name);
      if (!got) throw missing();
      if (got.size !== null && got.size > UPLOAD_CAP) {
        await got.body.cancel();
        throw over();
      }
      const data = new Uint8Array(await new Response(got.body).arrayBuffer());
      if (data.length > UPLOAD_CAP) throw over();
      return { name, data };
    }
    const found = await this.disk().find(workspace, folder, name);
    if (!found) throw missing();
    if (found.size > UPLOAD_CAP) throw over();
    const fh = await openNoFollow(found.path);
    if (!fh) throw missing();
    try {
      return { name, data: new Uint8Array(await fh.readFile()) };
    } finally {
      await fh.close();
    }
  }

  private async find(
    workspace: string,
    folder: Folder,
    name: string,
  ): Promise<{ name: string; size: number | null; modified: number | null } | null> {
    if (folder === "downloads") return (await this.downloads(workspace)).find((d) => d.name === name) ?? null;
    try {
      return await this.disk().find(workspace, folder, name);
    } catch (err) {
      if (err instanceof InvalidName) return null;
      throw err;
    }
  }

  private async downloads(workspace: string): Promise<GridDownload[]> {
    const id = await this.browserOf(workspace);
    return id ? this.needs.grid.downloads(id) : [];
  }

  /** One download of the workspace's browser, streamed; null when the browser or the file is gone. */
  private async download(workspace: string, name: string) {
    const id = await this.browserOf(workspace);
    return id ? await this.needs.grid.download(id, name) : null;
  }

  /** The Grid id of the workspace's browser (it never leaves the server), or null. */
  private async browserOf(workspace: string): Promise<string | null> {
    return (await this.needs.records.get(workspace))?.session_id || null;
  }
}
