// The inbox the transport delivers into: its files, a watcher that wakes the collector, a file's quiet time.
import { type Dirent, type Stats, stat } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { type FSWatcher, watch } from "chokidar";

/** A transport that writes a temporary name and renames it is still copying. */
export const PARTIAL_SUFFIXES = [".partial", ".part", ".tmp"];

/** Wakes a wait when the inbox changes (chokidar: events, or polling on a network filesystem). */
export class InboxWatcher {
  private watcher: FSWatcher | null = null;
  private dirty = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly inbox: string,
    private readonly polling: boolean,
    private readonly pollMs: number,
  ) {}

  get opened(): boolean {
    return this.watcher !== null;
  }

  /** A sweep begins: only a change from now on skips the next wait. */
  begin(): void {
    this.dirty = false;
  }

  /** Ends a wait now. */
  interrupt(): void {
    this.wake?.();
  }

  async open(): Promise<void> {
    const w = watch(this.inbox, {
      ignoreInitial: true,
      persistent: false,
      ...(this.polling
        ? {
            usePolling: true,
            interval: this.pollMs,
            binaryInterval: this.pollMs,
          }
        : {}),
    });
    w.on("all", () => {
      this.dirty = true;
      this.wake?.();
    });
    w.on("error", () => undefined);
    this.watcher = w;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5000);
      w.once("ready", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    // Whatever landed between the last sweep and the watcher being ready raised no event.
    this.dirty = true;
  }

  async close(): Promise<void> {
    const w = this.watcher;
    this.watcher = null;
    if (w) await w.close().catch(() => undefined);
  }

  /** Waits for a change in the inbox, at most `tickS` seconds (none when one came, or `closed`). */
  next(tickS: number, closed: boolean): Promise<void> {
    if (this.dirty || closed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, tickS * 1000);
      this.wake = done;
    });
  }
}

/** How long each inbox file has kept its size and mtime. */
export class QuietFiles {
  private readonly quiet = new Map<string, { size: number; mtime: number; since: number }>();

  /** Seconds the file has kept its size and mtime; the first sight of a state starts the clock. */
  async quietFor(path: string, now: number): Promise<number> {
    const st = await new Promise<Stats | null>((resolve) => stat(path, (err, s) => resolve(err ? null : s)));
    if (!st) return 0;
    const seen = this.quiet.get(path);
    if (!seen || seen.size !== st.size || seen.mtime !== st.mtimeMs) {
      this.quiet.set(path, { size: st.size, mtime: st.mtimeMs, since: now });
      return 0;
    }
    return now - seen.since;
  }

  delete(path: string): void {
    this.quiet.delete(path);
  }
}

/** Every file under the inbox, at any depth, but dot names and names still being copied. */
export async function inboxFiles(inbox: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith(".")) continue;
      const path = join(dir, e.name);
      if (e.isDirectory()) await walk(path);
      else if (e.isFile() && !PARTIAL_SUFFIXES.some((s) => e.name.endsWith(s))) out.push(path);
    }
  };
  await walk(inbox);
  return out;
}
