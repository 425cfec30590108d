// The collector in a group: collectors in separate processes watch one inbox and one data folder,
// claiming in one store (Redis, and one SQLite file). Each recording is filed exactly once; one
// SIGKILLed right after staging a recording, or right after linking it under its name, leaves
// nothing half-filed, and the other collector finishes it once the dead one's claim runs out.
import { afterAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileStore } from "../../src/files/store.ts";
import { nameFor } from "../../src/recordings/owed.ts";
import { testRedisUrl } from "../support/env.ts";
import { trailer } from "../support/recording.ts";

const WORKER = join(import.meta.dir, "../support/collector-worker.ts");
const BODY = new Uint8Array([0, 0, 0, 0x10, 0x6d, 0x6f, 0x6f, 0x66, ...new Array(4000).fill(7)]);
const VIDEO = new Uint8Array([...BODY, ...trailer()]);
const OPENED = Date.UTC(2026, 10, 3, 9, 41);
const gridId = (i: number) => `${String(i).padStart(2, "0")}`.repeat(16);

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Worker {
  lines: string[];
  until(line: string): Promise<void>;
  kill(signal: NodeJS.Signals): Promise<void>;
}

function worker(args: string[], env: Record<string, string>): Worker {
  const proc = Bun.spawn([process.execPath, WORKER, ...args], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, LEASE_MS: "2000", ...env },
  });
  const lines: string[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let rest = "";
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      rest += decoder.decode(value);
      const parts = rest.split("\n");
      rest = parts.pop() ?? "";
      lines.push(...parts);
    }
  })();
  return {
    lines,
    async until(line) {
      for (let i = 0; i < 600 && !lines.includes(line); i++) await Bun.sleep(25);
      if (!lines.includes(line)) throw new Error(`the worker never said ${line}: ${lines.join(" | ")}`);
    },
    async kill(signal) {
      proc.kill(signal);
      await proc.exited;
    },
  };
}

/** A data folder with `n` notes owed (their browsers gone) and their finished videos in the inbox. */
function world(n: number) {
  const dataDir = mkdtempSync(join(tmpdir(), "sf-collect-group-"));
  dirs.push(dataDir);
  const inbox = join(dataDir, "inbox");
  mkdirSync(inbox);
  const files = new FileStore(dataDir);
  for (let i = 1; i <= n; i++) {
    files.writeNote(`w${i}`, gridId(i), { opened: OPENED, ended: OPENED + 1000, browser: "chrome" });
    writeFileSync(join(inbox, `w${i}_${gridId(i)}.mp4`), VIDEO);
  }
  return { dataDir, inbox, files };
}

/** What is on disk for workspace `w`: its recordings and what is left in its .pending folder. */
function onDisk(dataDir: string, w: string) {
  const folder = join(dataDir, "sessions", w, "recordings");
  const pending = join(folder, ".pending");
  return {
    recordings: existsSync(folder)
      ? readdirSync(folder)
          .filter((f) => !f.startsWith("."))
          .sort()
      : [],
    pending: existsSync(pending) ? readdirSync(pending).sort() : [],
  };
}

async function settled(inbox: string, files: FileStore, ms = 20_000) {
  for (let waited = 0; waited < ms; waited += 50) {
    if (readdirSync(inbox).length === 0 && files.notes().length === 0) return;
    await Bun.sleep(50);
  }
  throw new Error(`not settled: inbox ${readdirSync(inbox).length}, notes ${files.notes().length}`);
}

const targets = () => {
  const sqlite = join(mkdtempSync(join(tmpdir(), "sf-collect-store-")), "records.sqlite");
  dirs.push(join(sqlite, ".."));
  return [
    {
      name: "Redis",
      target: testRedisUrl,
      env: { STORE_PREFIX: `sf-test-collect-${process.pid}-${Date.now()}:` },
    },
    { name: "SQLite file", target: sqlite, env: {} as Record<string, string> },
  ];
};

for (const { name, target, env } of targets()) {
  describe(`collectors on one ${name}`, () => {
    test("two collectors owing the same 20 recordings file each exactly once", async () => {
      const { dataDir, inbox, files } = world(20);
      const go = join(dataDir, "go");
      const both = [
        worker([dataDir, inbox, target], { ...env, STORE_WORKER_GO: go }),
        worker([dataDir, inbox, target], { ...env, STORE_WORKER_GO: go }),
      ];
      await Bun.sleep(300);
      writeFileSync(go, "go");
      try {
        await settled(inbox, files);
        for (let i = 1; i <= 20; i++) {
          expect(onDisk(dataDir, `w${i}`)).toEqual({ recordings: [nameFor(OPENED)], pending: [] });
          expect(
            new Uint8Array(readFileSync(join(dataDir, "sessions", `w${i}`, "recordings", nameFor(OPENED)))),
          ).toEqual(VIDEO);
        }
        // The workers say what they filed just after the disk shows it; a duplicate would say so too.
        const said = () => both.flatMap((w) => w.lines.filter((l) => l.startsWith("filed ")));
        for (let i = 0; i < 100 && said().length < 20; i++) await Bun.sleep(50);
        await Bun.sleep(500);
        const filed = said();
        expect(filed.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `filed w${i + 1}`).sort());
      } finally {
        for (const w of both) await w.kill("SIGTERM");
      }
    }, 60_000);

    for (const stop of ["staged", "linked"] as const) {
      test(`a collector SIGKILLed right after the video is ${stop} leaves nothing half-filed; the other finishes it once`, async () => {
        const { dataDir, inbox, files } = world(1);
        const dead = worker([dataDir, inbox, target, stop], env);
        await dead.until("stopped");
        await dead.kill("SIGKILL");
        // Mid-move, as it stopped: the listing shows no half-made file, the note says what is owed.
        const mid = onDisk(dataDir, "w1");
        expect(mid.recordings).toEqual(stop === "linked" ? [nameFor(OPENED)] : []);
        expect(mid.pending).toContain(`${gridId(1)}.json`);
        const next = worker([dataDir, inbox, target], env);
        try {
          await settled(inbox, files);
          expect(onDisk(dataDir, "w1")).toEqual({ recordings: [nameFor(OPENED)], pending: [] });
          expect(
            new Uint8Array(readFileSync(join(dataDir, "sessions", "w1", "recordings", nameFor(OPENED)))),
          ).toEqual(VIDEO);
          // It says so just after the disk shows it.
          await next.until("filed w1");
        } finally {
          await next.kill("SIGTERM");
        }
      }, 60_000);
    }
  });
}
