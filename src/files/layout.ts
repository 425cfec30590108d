// The data directory is a root with two homes in it: every workspace's own folder under
// `sessions/`, and the inbox the Grid's recordings arrive in. Neither can collide with a workspace's
// name, because a workspace is one level further down.
//
//   DATA_DIR/sessions/<name>/{flows,files,screenshots,recordings}
//   DATA_DIR/sessions/<name>/recordings/.pending/<gridId>.json   (notes: the collector's queue)
//   DATA_DIR/recordings/                                        (the default inbox; the operator's)
import { lstatSync, readdirSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import type { Config } from "../config/schema.ts";
import { ConfigError } from "../config/sources.ts";
import { InvalidName, isWorkspaceName, workspaceNameProblem } from "../kit/names.ts";
import { validFileName } from "./file-names.ts";

export const SESSIONS_DIR = "sessions";
export const FLOWS_DIR = "flows";
export const FILES_DIR = "files";
export const SCREENSHOTS_DIR = "screenshots";
export const RECORDINGS_DIR = "recordings";
export const PENDING_DIR = ".pending";
/** The server's key for signed file links (0600), generated once. */
export const LINK_KEY_FILE = ".link-key";

/** The folders of a workspace that hold files on disk. Downloads are the Grid's, not a folder here. */
export type DiskFolder = typeof FILES_DIR | typeof SCREENSHOTS_DIR | typeof RECORDINGS_DIR;

// The sub-folders that mark a directory as a workspace's, for the old-layout check.
const MARKS = [FLOWS_DIR, FILES_DIR, SCREENSHOTS_DIR];

/**
 * Workspace folders still at the top of the data directory (before the sessions/ layout), sorted.
 * One left there would make every flow and file it holds silently vanish, so the boot refuses.
 */
export function oldLayout(root: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const name of entries) {
    if (name === SESSIONS_DIR || !isWorkspaceName(name)) continue;
    const path = join(root, name);
    try {
      const st = lstatSync(path);
      if (!st.isDirectory() || st.isSymbolicLink()) continue;
    } catch {
      continue;
    }
    if (MARKS.some((m) => isDir(join(path, m)))) found.push(name);
  }
  return found.sort();
}

function isDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The data directory the config names (blank is unset), or null. */
export function dataDirOf(config: Config): string | null {
  const dir = config.data.dir?.trim();
  return dir ? resolve(dir) : null;
}

/** Refuses to boot over a data directory laid out the old way. */
export function checkLayout(root: string): void {
  const stranded = oldLayout(root);
  if (stranded.length) {
    throw new ConfigError(
      `${stranded.join(", ")} in ${root} are session folders from before the sessions/ layout: move them into ${join(root, SESSIONS_DIR)}/`,
    );
  }
}

/** `DATA_DIR/sessions/<workspace>`, the name checked before it becomes a path. */
export function workspaceDir(root: string, workspace: string): string {
  const problem = workspaceNameProblem(workspace);
  if (problem) throw new InvalidName(`${workspace} is not a workspace name: ${problem}`);
  return join(root, SESSIONS_DIR, workspace);
}

/** One file's path in a workspace folder; a name that would leave its folder is refused. */
export function filePath(root: string, workspace: string, folder: DiskFolder, name: string): string {
  const dir = join(workspaceDir(root, workspace), folder);
  const path = resolve(dir, validFileName(name));
  if (!path.startsWith(dir + sep)) throw new InvalidName(`${name} would leave its folder`);
  return path;
}

/** Whether anything of the workspace's lives on disk. */
