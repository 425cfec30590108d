// A workspace's folders on disk: paths checked, files listed and found, written under a free name, removed.
import { type Dirent, readdirSync } from "node:fs";
import { chmod, type FileHandle, link, lstat, mkdir, open, readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { InvalidName, isWorkspaceName } from "../kit/names.ts";
import { candidates, validFileName } from "./file-names.ts";
import { type DiskFolder, FILES_DIR, filePath, SESSIONS_DIR, workspaceDir } from "./layout.ts";
import {
  codeOf,
  copyExclusive,
  DIR_MODE,
  FILE_MODE,
  isRealDir,
  NO_LINK,
  type StoredFile,
  storedOf,
} from "./store-disk.ts";

/** The folder names a file in Files can never take: `workspace://files/<name>` would mean the folder. */
export const RESERVED_IN_FILES: ReadonlySet<string> = new Set(["screenshots", "downloads", "recordings"]);

// A folder with this many `name (n)` files already is not one a person tidies; stop rather than spin.
const MAX_CANDIDATES = 10_000;

/** What the store does to the disk that tests may replace (a link that fails like EXDEV). */
export interface DiskOps {
  link(source: string, target: string): Promise<void>;
}

export class Folders {
  /** `DATA_DIR/sessions`. */
  readonly sessionsDir: string;

  constructor(
    readonly dataDir: string,
    protected readonly ops: DiskOps = { link },
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
      return storedOf(target, await stat(target));
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

  // ---- claiming a name ----

  protected *targets(workspace: string, folder: DiskFolder, name: string): Generator<string> {
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
      return storedOf(target, await stat(target));
    }
    throw new Error("unreachable");
  }
}
