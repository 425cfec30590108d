// The workspace folders on disk: Files (kept files and prints), Screenshots and Recordings, and the
// recording notes. Nothing here overwrites: a name that is taken lands as `name (1)`, claimed with
// an exclusive create or a hard link, so two writers racing for one name cannot both win it.
import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { chmod, mkdir, open, rename, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { validGridId } from "../kit/names.ts";
import { PENDING_DIR, RECORDINGS_DIR } from "./layout.ts";
import {
  codeOf,
  copyExclusive,
  DIR_MODE,
  FILE_MODE,
  ignoreMissing,
  NO_LINK,
  nameOf,
  type StoredFile,
  statOf,
  storedOf,
} from "./store-disk.ts";
import { Folders } from "./store-folders.ts";

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

/** The folders, with the recording notes and the filing of recordings on top. */
export class FileStore extends Folders {
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

  /** Every owed recording. A note that cannot be read is skipped (its workspace told), never deleted. */
  notes(unreadable: (workspace: string) => void = () => undefined): NoteEntry[] {
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
          unreadable(workspace);
          continue;
        }
        const note = noteOf(parsed);
        if (note) out.push({ workspace, gridId, note });
      }
    }
    return out;
  }
}

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
