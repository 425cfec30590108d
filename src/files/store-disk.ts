// Disk primitives of the folders: owner-only modes, no-follow reads, real-folder checks, exclusive copies.
import { constants, lstatSync, type Stats } from "node:fs";
import { type FileHandle, lstat, open, unlink } from "node:fs/promises";

export interface StoredFile {
  name: string;
  path: string;
  size: number;
  /** Epoch milliseconds. */
  modified: number;
}

// Where a hard link cannot be made (another filesystem, or one without links): copy instead.
export const NO_LINK = new Set(["EXDEV", "EPERM", "EACCES", "ENOTSUP", "EOPNOTSUPP", "EMLINK", "ENOSYS"]);
const CHUNK = 1024 * 1024;

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
export function isRealDir(path: string): boolean {
  try {
    const st = lstatSync(path);
    return st.isDirectory() && !st.isSymbolicLink();
  } catch {
    return false;
  }
}

export const nameOf = (path: string) => path.slice(path.lastIndexOf("/") + 1);

export async function statOf(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch (err) {
    if (codeOf(err) === "ENOENT") return null;
    throw err;
  }
}

export const storedOf = (path: string, st: Stats): StoredFile => ({
  name: nameOf(path),
  path,
  size: st.size,
  modified: Math.round(st.mtimeMs),
});

export const ignoreMissing = (err: unknown) => {
  if (codeOf(err) !== "ENOENT") throw err;
};

/** Claims `target` with an exclusive create and copies `source` into it in 1 MiB chunks. */
export async function copyExclusive(source: string, target: string): Promise<void> {
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
