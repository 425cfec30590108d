// The workspace folders on disk: Files (kept files and prints), Screenshots and Recordings, and the
// recording notes. Nothing here overwrites: a name that is taken lands as `name (1)`, claimed with
// an exclusive create or a hard link, so two writers racing for one name cannot both win it.
import {
  constants,
  type Dirent,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import {
  chmod,
  type FileHandle,
  link,
  lstat,
  mkdir,
  open,
  readdir,
  rename,
  stat,
  unlink,
} from "node:fs/promises";
import { join } from "node:path";
import { log } from "../log.ts";
import { candidates, InvalidName, isWorkspaceName, validFileName, validGridId } from "../names.ts";
import {
  type DiskFolder,
  FILES_DIR,
  filePath,
  PENDING_DIR,
  RECORDINGS_DIR,
  SESSIONS_DIR,
  workspaceDir,
} from "./layout.ts";

/** The folder names a file in Files can never take: `workspace://files/<name>` would mean the folder. */
export const RESERVED_IN_FILES: ReadonlySet<string> = new Set(["screenshots", "downloads", "recordings"]);

export interface StoredFile {
  name: string;
  path: string;
  size: number;
  /** Epoch milliseconds. */
  modified: number;
}

/** A recording owed to a workspace, as its note on disk says. */
export interface Note {
  /** Epoch ms when the recorded browser opened; it names the filed video. */
  opened: number;
  /** Epoch ms when the browser was known to have ended, or null. */
  ended: number | null;
  browser: string;
  /** The name the recording is being filed under (set once it is staged, until it is filed). */
  filing?: string;
}

export interface NoteEntry {
  workspace: string;
  gridId: string;
  note: Note;
}

// Where a hard link cannot be made (another filesystem, or one without links): copy instead.
const NO_LINK = new Set(["EXDEV", "EPERM", "EACCES", "ENOTSUP", "EOPNOTSUPP", "EMLINK", "ENOSYS"]);
const CHUNK = 1024 * 1024;
// A folder with this many `name (n)` files already is not one a person tidies; stop rather than spin.
const MAX_CANDIDATES = 10_000;

export const codeOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException)?.code;

/** Everything this server makes under data.dir is its own alone. */
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/**
 * A regular file opened for reading without following a symlink (O_NOFOLLOW), or null when it is
 * not there or not a regular file: a link planted in a folder is never read through.
 */
export async function openNoFollow(path: string): Promise<FileHandle | null> {
  let fh: FileHandle;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    if (["ENOENT", "ENOTDIR", "ELOOP", "EMLINK"].includes(codeOf(err) ?? "")) return null;
    throw err;
  }
  if (!(await fh.stat()).isFile()) {
    await fh.close();
    return null;
  }
  return fh;
}

/** Whether `path` is a real folder, not a symlink to one. */
function isRealDir(path: string): boolean {
  try {
    const st = lstatSync(path);
    return st.isDirectory() && !st.isSymbolicLink();
  } catch {
    return false;
  }
}

/** What the store does to the disk that tests may replace (a link that fails like EXDEV). */
export interface DiskOps {
  link(source: string, target: string): Promise<void>;
}

export class FileStore {
  /** `DATA_DIR/sessions`. */
  readonly sessionsDir: string;

  constructor(
    readonly dataDir: string,
    private readonly ops: DiskOps = { link },
  ) {
    this.sessionsDir = join(dataDir, SESSIONS_DIR);
  }

  /** A file's path, checked; for a route that streams it from disk. */
  path(workspace: string, folder: DiskFolder, name: string): string {
    return filePath(this.dataDir, workspace, folder, name);
  }

  folderPath(workspace: string, folder: DiskFolder): string {
    return join(workspaceDir(this.dataDir, workspace), folder);
  }

  /** Whether a workspace's folder is a real one: a symlink in its place is not followed. */
  private realFolder(workspace: string, folder: DiskFolder): boolean {
    return isRealDir(workspaceDir(this.dataDir, workspace)) && isRealDir(this.folderPath(workspace, folder));
  }

  /** The regular files of a folder (never its notes, dot files or symlinks), newest first. */
  async list(workspace: string, folder: DiskFolder): Promise<StoredFile[]> {
    const dir = this.folderPath(workspace, folder);
    if (!this.realFolder(workspace, folder)) return [];
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (codeOf(err) === "ENOENT" || codeOf(err) === "ENOTDIR") return [];
      throw err;
    }
    const out: StoredFile[] = [];
    for (const e of entries) {
      if (!e.isFile() || e.name.startsWith(".")) continue;
      const path = join(dir, e.name);
      try {
        const st = await lstat(path);
        if (!st.isFile()) continue;
        out.push({ name: e.name, path, size: st.size, modified: Math.round(st.mtimeMs) });
      } catch {
        // gone between the listing and the look: not there
      }
    }
    return out.sort((a, b) => b.modified - a.modified || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
  }

  /** One file, or null when it is not there. */
  async find(workspace: string, folder: DiskFolder, name: string): Promise<StoredFile | null> {
    let path: string;
    try {
      path = this.path(workspace, folder, name);
    } catch (err) {
      if (err instanceof InvalidName) return null;
      throw err;
    }
    if (!this.realFolder(workspace, folder)) return null;
    try {
      // lstat: a symlink is not a file of this folder, whatever it points at.
      const st = await lstat(path);
      if (!st.isFile()) return null;
      return { name, path, size: st.size, modified: Math.round(st.mtimeMs) };
    } catch (err) {
      if (codeOf(err) === "ENOENT" || codeOf(err) === "ENOTDIR") return null;
      throw err;
    }
  }

  /** Writes `bytes` under the first free name from `name`. */
  async write(workspace: string, folder: DiskFolder, name: string, bytes: Uint8Array): Promise<StoredFile> {
    return this.claim(workspace, folder, name, async (fd) => {
      await fd.writeFile(bytes);
    });
  }

  /** Streams `body` into a file under the first free name from `name` (a copy: the source stays). */
  async writeStream(
    workspace: string,
    folder: DiskFolder,
    name: string,
    body: ReadableStream<Uint8Array>,
  ): Promise<StoredFile> {
    return this.claim(workspace, folder, name, async (fd) => {
      const reader = body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        await fd.write(value);
      }
    });
  }

  /**
   * Takes `source` (anywhere on this machine) into a folder under the first free name from `name`,
   * then removes it. The claim is a hard link, or where links cannot be made an exclusive create and
   * a copy; a copy that fails half-way leaves nothing behind.
   */
  async moveIn(workspace: string, source: string, name: string, folder: DiskFolder): Promise<StoredFile> {
    await mkdir(this.folderPath(workspace, folder), { recursive: true, mode: DIR_MODE });
    for (const target of this.targets(workspace, folder, name)) {
      try {
        await this.ops.link(source, target);
      } catch (err) {
        if (codeOf(err) === "EEXIST") continue;
        if (!NO_LINK.has(codeOf(err) ?? "")) throw err;
        try {
          await copyExclusive(source, target);
        } catch (copyErr) {
          if (codeOf(copyErr) === "EEXIST") continue;
          throw copyErr;
        }
      }
      try {
        await unlink(source);
      } catch (err) {
        // Left in place, the source would be filed again as `name (1)`: take the claim back.
        await unlink(target).catch(() => undefined);
        throw err;
      }
      // A recording arrives as the recorder made it (often 0644): here it is the server's alone.
      await chmod(target, FILE_MODE).catch(() => undefined);
      const st = await stat(target);
      return { name: nameOf(target), path: target, size: st.size, modified: Math.round(st.mtimeMs) };
    }
    throw new Error("unreachable");
  }

  /** Deletes every file of Screenshots or Recordings (never their notes); the count. */
  async clear(workspace: string, folder: Exclude<DiskFolder, typeof FILES_DIR>): Promise<number> {
    if ((folder as string) === FILES_DIR) throw new Error("Files is never cleared in bulk");
    let n = 0;
    for (const f of await this.list(workspace, folder)) {
      try {
        await unlink(f.path);
        n++;
      } catch (err) {
        if (codeOf(err) !== "ENOENT") throw err;
      }
    }
    return n;
  }

  /** Deletes one file; false when it was not there. */
  async remove(workspace: string, folder: DiskFolder, name: string): Promise<boolean> {
    const found = await this.find(workspace, folder, name);
    if (!found) return false;
    try {
      await unlink(found.path);
      return true;
    } catch (err) {
      if (codeOf(err) === "ENOENT") return false;
      throw err;
    }
  }

  /** The workspaces with a folder on disk. */
  workspaces(): string[] {
    try {
      return readdirSync(this.sessionsDir, { withFileTypes: true })
        .filter((e) => e.isDirectory() && isWorkspaceName(e.name))
        .map((e) => e.name)
        .sort();
    } catch {
      return [];
    }
  }

  // ---- recording notes (synchronous: a note is on disk before the open that owes it returns) ----

  private notePath(workspace: string, gridId: string): string {
    return join(this.folderPath(workspace, RECORDINGS_DIR), PENDING_DIR, `${validGridId(gridId)}.json`);
  }

  /** Writes a note whole: a temp file beside it (its own: servers of a group share the folder), then a rename over it. */
  writeNote(workspace: string, gridId: string, note: Note): void {
    const path = this.notePath(workspace, gridId);
    mkdirSync(join(path, ".."), { recursive: true, mode: DIR_MODE });
    const tmp = `${path.slice(0, -".json".length)}.${process.pid}-${crypto.randomUUID().slice(0, 8)}.tmp`;
    writeFileSync(tmp, JSON.stringify(note), { mode: FILE_MODE });
    renameSync(tmp, path);
  }

  /** True when the note was there. */
  deleteNote(workspace: string, gridId: string): boolean {
    try {
      unlinkSync(this.notePath(workspace, gridId));
      return true;
    } catch (err) {
      if (codeOf(err) === "ENOENT") return false;
      throw err;
    }
  }

  /** One note, or null when it is not there (filed, or given up) or cannot be read. */
  readNote(workspace: string, gridId: string): Note | null {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.notePath(workspace, gridId), "utf8"));
    } catch {
      return null;
    }
    return noteOf(parsed);
  }

  /**
   * Files a recording so that a server stopping at any point leaves nothing half-filed: the video is
   * staged beside its note first (`.pending/<gridId>.mp4`, hidden: a link, or a whole copy renamed
   * into place), the note then names the file it becomes, it is linked under that name (never over
   * another file), and only then do the inbox file, the stage and the note go. Run again after a stop
   * (by whichever server holds the recording's claim), it goes on from where the other stopped.
   * Null when the recording was filed already.
   */
  async fileRecording(
    workspace: string,
    gridId: string,
    source: string,
    name: string,
  ): Promise<StoredFile | null> {
    const pending = join(this.folderPath(workspace, RECORDINGS_DIR), PENDING_DIR);
    const stage = join(pending, `${validGridId(gridId)}.mp4`);
    const note = this.readNote(workspace, gridId);
    if (!note) return null;
    await mkdir(pending, { recursive: true, mode: DIR_MODE });
    let resumeAt: string | null = null;
    if (note.filing) {
      const target = this.path(workspace, RECORDINGS_DIR, note.filing);
      const [st, tg] = await Promise.all([statOf(stage), statOf(target)]);
      if (st && tg && st.ino === tg.ino && st.dev === tg.dev)
        return this.finishFiling(workspace, gridId, source, stage, target);
      if (st && tg && tg.size === 0 && st.size > 0) {
        // The name was claimed with an empty file (no hard links here); the stage goes over it.
        return this.putOver(workspace, gridId, source, stage, target);
      }
      if (!st) {
        // The stage goes only after the inbox file did: what the note names is filed (or was deleted since).
        this.deleteNote(workspace, gridId);
        return tg ? storedOf(target, tg) : null;
      }
      resumeAt = note.filing;
    }
    if (!resumeAt) {
      const src = await statOf(source);
      if (src) {
        await unlink(stage).catch(ignoreMissing);
        await this.stageCopy(source, stage);
      } else if (!(await statOf(stage))) {
        return null;
      }
    }
    for (const target of this.targets(workspace, RECORDINGS_DIR, resumeAt ?? name)) {
      this.writeNote(workspace, gridId, { ...note, filing: nameOf(target) });
      try {
        await this.ops.link(stage, target);
      } catch (err) {
        if (codeOf(err) === "EEXIST") continue;
        if (!NO_LINK.has(codeOf(err) ?? "")) throw err;
        // No hard links on this filesystem: claim the name with an empty file, then rename the
        // stage over it (whole, at once).
        try {
          await (await open(target, "wx", FILE_MODE)).close();
        } catch (openErr) {
          if (codeOf(openErr) === "EEXIST") continue;
          throw openErr;
        }
        return this.putOver(workspace, gridId, source, stage, target);
      }
      return this.finishFiling(workspace, gridId, source, stage, target);
    }
    throw new Error("unreachable");
  }

  /** The inbox file goes first: once the stage is renamed away, nothing would say it was filed. */
  private async putOver(
    workspace: string,
    gridId: string,
    source: string,
    stage: string,
    target: string,
  ): Promise<StoredFile> {
    await unlink(source).catch(ignoreMissing);
    await rename(stage, target);
    return this.finishFiling(workspace, gridId, source, stage, target);
  }

  /** The stage: a hard link to the inbox file, or where links cannot be made a copy renamed into place. */
  private async stageCopy(source: string, stage: string): Promise<void> {
    try {
      await this.ops.link(source, stage);
      return;
    } catch (err) {
      if (!NO_LINK.has(codeOf(err) ?? "")) throw err;
    }
    const part = `${stage}.part`;
    await unlink(part).catch(ignoreMissing);
    await copyExclusive(source, part);
    await rename(part, stage);
  }

  private async finishFiling(
    workspace: string,
    gridId: string,
    source: string,
    stage: string,
    target: string,
  ): Promise<StoredFile> {
    await unlink(source).catch(ignoreMissing);
    await unlink(stage).catch(ignoreMissing);
    // A recording arrives as the recorder made it (often 0644): here it is the server's alone.
    await chmod(target, FILE_MODE).catch(() => undefined);
    this.deleteNote(workspace, gridId);
    return storedOf(target, await stat(target));
  }

  /** Every owed recording. A note that cannot be read is skipped with a warning, never deleted. */
  notes(): NoteEntry[] {
    const out: NoteEntry[] = [];
    for (const workspace of this.workspaces()) {
      const dir = join(this.folderPath(workspace, RECORDINGS_DIR), PENDING_DIR);
      let names: string[];
      try {
        names = readdirSync(dir).filter((n) => n.endsWith(".json"));
      } catch {
        continue;
      }
      for (const file of names.sort()) {
        let gridId: string;
        let parsed: unknown;
        try {
          gridId = validGridId(file.slice(0, -".json".length));
          parsed = JSON.parse(readFileSync(join(dir, file), "utf8"));
        } catch {
          // Never the file's name: it is the Grid id.
          log.warn(`ignoring a recording note of ${workspace}: it cannot be read`);
          continue;
        }
        const note = noteOf(parsed);
        if (note) out.push({ workspace, gridId, note });
      }
    }
    return out;
  }

  // ---- claiming a name ----

  private *targets(workspace: string, folder: DiskFolder, name: string): Generator<string> {
    validFileName(name);
    let tried = 0;
    for (const candidate of candidates(name)) {
      if (++tried > MAX_CANDIDATES) break;
      if (folder === FILES_DIR && RESERVED_IN_FILES.has(candidate)) continue;
      yield this.path(workspace, folder, candidate);
    }
    throw new Error(`no free name for ${name}: ${MAX_CANDIDATES} are taken`);
  }

  private async claim(
    workspace: string,
    folder: DiskFolder,
    name: string,
    fill: (fd: FileHandle) => Promise<void>,
  ): Promise<StoredFile> {
    await mkdir(this.folderPath(workspace, folder), { recursive: true, mode: DIR_MODE });
    for (const target of this.targets(workspace, folder, name)) {
      let fd: FileHandle;
      try {
        fd = await open(target, "wx", FILE_MODE);
      } catch (err) {
        if (codeOf(err) === "EEXIST") continue;
        throw err;
      }
      try {
        await fill(fd);
      } catch (err) {
        await fd.close().catch(() => undefined);
        await unlink(target).catch(() => undefined);
        throw err;
      }
      await fd.close();
      const st = await stat(target);
      return { name: nameOf(target), path: target, size: st.size, modified: Math.round(st.mtimeMs) };
    }
    throw new Error("unreachable");
  }
}

const nameOf = (path: string) => path.slice(path.lastIndexOf("/") + 1);

function noteOf(parsed: unknown): Note | null {
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
  const n = parsed as Record<string, unknown>;
  const note: Note = {
    opened: typeof n.opened === "number" ? n.opened : 0,
    ended: typeof n.ended === "number" ? n.ended : null,
    browser: typeof n.browser === "string" ? n.browser : "",
  };
  if (typeof n.filing === "string" && n.filing) note.filing = n.filing;
  return note;
}

async function statOf(path: string): Promise<import("node:fs").Stats | null> {
  try {
    return await lstat(path);
  } catch (err) {
    if (codeOf(err) === "ENOENT") return null;
    throw err;
  }
}

const storedOf = (path: string, st: import("node:fs").Stats): StoredFile => ({
  name: nameOf(path),
  path,
  size: st.size,
  modified: Math.round(st.mtimeMs),
});

const ignoreMissing = (err: unknown) => {
  if (codeOf(err) !== "ENOENT") throw err;
};

/** Claims `target` with an exclusive create and copies `source` into it in 1 MiB chunks. */
async function copyExclusive(source: string, target: string): Promise<void> {
  const out = await open(target, "wx", FILE_MODE);
  try {
    const input = await open(source, "r");
    try {
      const buf = new Uint8Array(CHUNK);
      for (;;) {
        const { bytesRead } = await input.read(buf, 0, CHUNK, null);
        if (bytesRead === 0) break;
        await out.write(buf, 0, bytesRead);
      }
    } finally {
      await input.close();
    }
    await out.close();
  } catch (err) {
    await out.close().catch(() => undefined);
    await unlink(target).catch(() => undefined);
    throw err;
  }
}
