// A file several servers booting on one data dir may each try to make (a key): the first one wins
// whole. Written aside, then linked into place, so no one ever reads it half written (a plain
// `wx` write makes the file empty first, and a second server read that as a bad key).
import { linkSync, rmSync, writeFileSync } from "node:fs";

/** Makes `file` holding `text` unless it exists. True when this call made it. */
export function writeOnce(file: string, text: string, mode = 0o600): boolean {
  const aside = `${file}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(aside, text, { mode, flag: "wx" });
  try {
    linkSync(aside, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    return false;
  } finally {
    rmSync(aside, { force: true });
  }
}
