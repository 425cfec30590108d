// Whether the inbox is on a network filesystem, where events see nothing: inotify reports only
// changes made through this machine's own mount, so a file an NFS, SMB or FUSE peer writes raises
// no event. `auto` polls there and uses events everywhere else, including where there is no /proc.
import { readFileSync, realpathSync } from "node:fs";
import { resolve } from "node:path";

export const NETWORK: ReadonlySet<string> = new Set([
  "nfs",
  "nfs4",
  "cifs",
  "smb3",
  "smbfs",
  "9p",
  "ceph",
  "glusterfs",
]);

export type WatchMode = "auto" | "events" | "poll";

/** True when the longest mount holding `path` is a network or FUSE filesystem. */
export function networkFilesystem(path: string, mountinfo = "/proc/self/mountinfo"): boolean {
  let text: string;
  try {
    text = readFileSync(mountinfo, "utf8");
  } catch {
    return false;
  }
  let target: string;
  try {
    target = realpathSync(path);
  } catch {
    target = resolve(path);
  }
  let bestPoint = "";
  let bestType = "";
  for (const line of text.split("\n")) {
    const at = line.indexOf(" - ");
    if (at < 0) continue;
    const fields = line.slice(0, at).split(" ");
    const fsType = line.slice(at + 3).split(" ")[0];
    if (fields.length < 5 || !fsType) continue;
    const point = fields[4]!.replace(/\\040/g, " ");
    const inside = target === point || target.startsWith(`${point.replace(/\/+$/, "")}/`);
    // On a tie the later line wins: it was mounted over the earlier one.
    if (inside && point.length >= bestPoint.length) {
      bestPoint = point;
      bestType = fsType;
    }
  }
  return NETWORK.has(bestType) || bestType.startsWith("fuse");
}

/** Whether to poll the inbox, from `recording.watch`. */
export function polling(watch: WatchMode, path: string, mountinfo?: string): boolean {
  if (watch === "poll") return true;
  if (watch === "events") return false;
  return networkFilesystem(path, mountinfo);
}
