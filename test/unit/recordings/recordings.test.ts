// Recordings without a Grid: the mfro check, the watch mode, and the collector's rules on a fake
// clock (the quiet threshold and the liveness tick are injectable here, fixed in production).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileStore } from "../../../src/files/store.ts";
import { errorKind } from "../../../src/kit/error-kind.ts";
import { Collector } from "../../../src/recordings/collector.ts";
import { networkFilesystem, polling } from "../../../src/recordings/mounts.ts";
import { isComplete } from "../../../src/recordings/mp4.ts";
import { nameFor } from "../../../src/recordings/owed.ts";
import { trailer } from "../../support/recording.ts";
import { logLines, testLog } from "../../support/server.ts";

const GID = "8f3d6dc2a1b04e6f9c1d2e3f4a5b6c7d";
const OTHER = "0123456789abcdef0123456789abcdef";
const BODY = new Uint8Array([0, 0, 0, 0x10, 0x6d, 0x6f, 0x6f, 0x66, ...new Array(100).fill(0)]);
const cat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const FINISHED = cat(BODY, trailer());

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "sf-rec-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a finished recording ends in mfro", () => {
  const write = (bytes: Uint8Array) => {
    const p = join(dir, "v.mp4");
    writeFileSync(p, bytes);
    return p;
  };
  test("a body and a valid trailer is complete, with or without tfra entries", async () => {
    expect(await isComplete(write(FINISHED))).toBe(true);
    expect(await isComplete(write(cat(BODY, trailer(new Uint8Array(40)))))).toBe(true);
  });
  test("still growing, cut inside the trailer, a wrong size, tiny or missing: not complete", async () => {
    expect(await isComplete(write(BODY))).toBe(false);
    expect(await isComplete(write(FINISHED.slice(0, -5)))).toBe(false);
    const bad = FINISHED.slice();
    bad[bad.length - 1]! ^= 1;
    expect(await isComplete(write(bad))).toBe(false);
    expect(await isComplete(write(new Uint8Array(10)))).toBe(false);
    expect(await isComplete(join(dir, "absent.mp4"))).toBe(false);
  });
});

describe("the watch mode", () => {
  const INFO = [
    "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw",
    "40 22 0:50 / /data/flows rw,relatime - nfs4 nas:/volume1/flows rw",
    "41 22 0:51 / /mnt/my\\040share rw - cifs //nas/share rw",
    "42 22 0:52 / /data/local rw - xfs /dev/sdb1 rw",
    "43 22 0:53 / /mnt/s3 rw - fuse.rclone remote: rw",
  ].join("\n");
  test("the longest mount holding the path decides; \\040 is a space; FUSE counts", () => {
    const info = join(dir, "mountinfo");
    writeFileSync(info, INFO);
    expect(networkFilesystem("/data/flows/recordings", info)).toBe(true);
    expect(networkFilesystem("/data/local/recordings", info)).toBe(false);
    expect(networkFilesystem("/tmp/x", info)).toBe(false);
    expect(networkFilesystem("/mnt/my share/v", info)).toBe(true);
    expect(networkFilesystem("/mnt/s3/videos", info)).toBe(true);
  });
  test("no mountinfo means events; the setting overrides auto", () => {
    expect(networkFilesystem("/x", join(dir, "absent"))).toBe(false);
    const info = join(dir, "mountinfo");
    writeFileSync(info, INFO);
    expect(polling("auto", "/data/flows/recordings", info)).toBe(true);
    expect(polling("events", "/data/flows/recordings", info)).toBe(false);
    expect(polling("poll", "/data/local", info)).toBe(true);
    expect(polling("auto", "/data/local", info)).toBe(false);
  });
});

describe("file names and failure kinds", () => {
  test("rec-YYYYMMDD-HHMM.mp4 in UTC", () => {
    expect(nameFor(Date.UTC(2026, 9, 8, 14, 3, 59))).toBe("rec-20261008-1403.mp4");
  });
  test("an OS error is named by kind, never by path", () => {
    const e = Object.assign(new Error("EACCES: permission denied, open '/data/sessions/bot/x'"), {
      code: "EACCES",
    });
    expect(errorKind(e)).toBe("PermissionError");
  });
});

interface Parts {
  c: Collector;
  store: FileStore;
  inbox: string;
  alive: Set<string>;
  filed: string[];
  clock: { now: number };
}

function parts(
  opts: {
    polling?: boolean;
    tick?: number;
    pollMs?: number;
    liveIds?: () => Promise<Set<string> | null>;
  } = {},
): Parts {
  const store = new FileStore(dir);
  const inbox = join(dir, "recordings");
  mkdirSync(inbox, { recursive: true });
  const alive = new Set([GID]);
  const filed: string[] = [];
  const clock = { now: 1_791_500_000 };
  const c = new Collector({
    log: testLog(),
    store,
    inbox,
    liveIds: opts.liveIds ?? (async () => new Set(alive)),
    wait: 600,
    polling: opts.polling ?? true,
    pollMs: opts.pollMs ?? 50,
    events: { changed: (w) => filed.push(w) },
    clock: () => clock.now,
    tick: opts.tick ?? 0.1,
    idleAfter: 60,
  });
  return { c, store, inbox, alive, filed, clock };
}

describe("the collector", () => {
  test("expect writes the note before it returns", () => {
    const { c, store } = parts();
    expect(c.expect("bot", GID, "chrome")).toBeNull();
    expect(store.notes()).toEqual([
      { workspace: "bot", gridId: GID, note: { opened: 1_791_500_000_000, ended: null, browser: "chrome" } },
    ]);
  });

  test("nothing is filed while the file grows", async () => {
    const { c, store, inbox, filed } = parts();
    c.expect("bot", GID, "chrome");
    writeFileSync(join(inbox, `bot_${GID}.mp4`), BODY);
    await c.sweep();
    expect(await store.list("bot", "recordings")).toEqual([]);
    expect(filed).toEqual([]);
  });

  test("a file that ends in mfro is filed under its name, its note and the inbox file go", async () => {
    const { c, store, inbox, filed, clock } = parts();
    c.expect("bot", GID, "chrome");
    writeFileSync(join(inbox, `bot_${GID}.mp4`), FINISHED);
    const before = logLines.length;
    await c.sweep();
    const names = (await store.list("bot", "recordings")).map((f) => f.name);
    expect(names).toEqual([nameFor(clock.now * 1000)]);
    expect(store.notes()).toEqual([]);
    expect(c.owed.has(GID)).toBe(false);
    expect(filed).toEqual(["bot"]);
    expect(existsSync(join(inbox, `bot_${GID}.mp4`))).toBe(false);
    const said = logLines.slice(before).join("\n");
    expect(said).toContain(`recordings: filed bot/${names[0]}`);
    expect(said).not.toContain(GID);
  });

  test("a match deep in the inbox is found; a .partial is not, until it is renamed", async () => {
    const { c, inbox, filed } = parts();
    c.expect("bot", GID, "chrome");
    const deep = join(inbox, "a", GID);
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, `x_${GID}.mp4.partial`), FINISHED);
    await c.sweep();
    expect(filed).toEqual([]);
    renameSync(join(deep, `x_${GID}.mp4.partial`), join(deep, `x_${GID}.mp4`));
    await c.sweep();
    expect(filed).toEqual(["bot"]);
  });

  test("a file with no trailer waits for the browser to be gone and a minute of quiet", async () => {
    const { c, inbox, alive, filed, clock } = parts();
    c.expect("bot", GID, "chrome");
    writeFileSync(join(inbox, `bot_${GID}.mp4`), BODY);
    await c.sweep();
    clock.now += 61;
    await c.sweep(); // quiet, but the browser lives: never early
    expect(filed).toEqual([]);
    alive.clear();
    clock.now += 61;
    const before = logLines.length;
    await c.sweep();
    expect(filed).toEqual(["bot"]);
    expect(logLines.slice(before).join("\n")).toContain("ends without a trailer; filed as it is");
  });

  test("a file that keeps changing is not quiet, however long", async () => {
    const { c, inbox, alive, filed, clock } = parts();
    alive.clear();
    c.expect("bot", GID, "chrome");
    const p = join(inbox, `bot_${GID}.mp4`);
    for (let i = 1; i <= 4; i++) {
      writeFileSync(p, cat(BODY, new Uint8Array(i)));
      await c.sweep();
      clock.now += 40;
    }
    expect(filed).toEqual([]);
  });

  test("one that never comes is given up after recording.wait, with a warning naming no Grid id", async () => {
    const { c, store, alive, clock } = parts();
    c.expect("bot", GID, "chrome");
    c.ended(GID);
    alive.clear();
    clock.now += 599;
    await c.sweep();
    expect(store.notes()).toHaveLength(1);
    clock.now += 2;
    const before = logLines.length;
    await c.sweep();
    expect(store.notes()).toEqual([]);
    expect(c.owed.has(GID)).toBe(false);
    const said = logLines.slice(before).join("\n");
    expect(said).toContain("WARN");
    expect(said).toContain(
      "recording for session bot (opened 22:53 UTC) never reached RECORDING_DIR; see the README's Recording section",
    );
    expect(said).not.toContain(GID);
  });

  test("a reap is noticed by the tick: ended is now, in memory and in the note", async () => {
    const { c, store, alive, clock } = parts();
    c.expect("bot", GID, "chrome");
    alive.clear();
    await c.sweep();
    expect(c.owed.get(GID)!.ended).toBe(clock.now * 1000);
    expect(store.notes()[0]!.note.ended).toBe(clock.now * 1000);
  });

  test("a Grid that does not answer counts as alive: nothing ends early", async () => {
    const { c, clock } = parts({ liveIds: async () => null });
    c.expect("bot", GID, "chrome");
    clock.now += 10_000;
    await c.sweep();
    expect(c.owed.get(GID)!.ended).toBeNull();
  });

  test("two workspaces never claim each other's files (the recorder strips the dot)", async () => {
    const { c, store, inbox, alive } = parts();
    alive.add(OTHER);
    c.expect("a.b", GID, "chrome");
    c.expect("ab", OTHER, "chrome");
    writeFileSync(join(inbox, `ab_${OTHER}.mp4`), FINISHED);
    await c.sweep();
    expect(await store.list("a.b", "recordings")).toEqual([]);
    expect(await store.list("ab", "recordings")).toHaveLength(1);
    expect(c.owed.has(GID)).toBe(true);
    expect(c.owed.has(OTHER)).toBe(false);
  });

  test("an end for an unknown id owes nothing", () => {
    const { c } = parts();
    c.ended("ffffffffffffffffffffffffffffffff");
    expect(c.owed.size).toBe(0);
  });

  test("a note that cannot be written keeps the browser's open and says why, without the path", () => {
    const { c, store } = parts();
    const broken = Object.assign(
      new Error("EACCES: permission denied, open '/data/sessions/bot/recordings'"),
      {
        code: "EACCES",
      },
    );
    store.writeNote = () => {
      throw broken;
    };
    const before = logLines.length;
    const said = c.expect("bot", GID, "chrome");
    expect(said).toBe("this recording cannot be filed: PermissionError");
    expect(said).not.toContain("/data");
    expect(logLines.slice(before).join("\n")).toContain("recording for bot cannot be filed: PermissionError");
    expect(c.owed.size).toBe(0);
  });

  test("the loop runs only while something is owed, and the notes carry it over a restart", async () => {
    const { c, store, inbox, clock } = parts();
    await c.start();
    expect(c.running).toBe(false);
    c.expect("bot", GID, "chrome");
    expect(c.running).toBe(true);
    await c.stop();
    expect(c.running).toBe(false);
    // A new process: the note is the queue, and every browser is gone.
    const c2 = new Collector({
      log: testLog(),
      store,
      inbox,
      liveIds: async () => new Set(),
      wait: 600,
      polling: true,
      pollMs: 50,
      clock: () => clock.now,
      tick: 0.1,
    });
    writeFileSync(join(inbox, `bot_${GID}.mp4`), FINISHED);
    const before = logLines.length;
    await c2.start();
    expect(logLines.slice(before).join("\n")).toContain("recordings: 1 owed from before the restart");
    for (let i = 0; i < 100 && (c2.owed.size || c2.running); i++) await Bun.sleep(20);
    expect(c2.owed.size).toBe(0);
    expect(c2.running).toBe(false);
    expect(await store.list("bot", "recordings")).toHaveLength(1);
    await c2.stop();
  });

  for (const mode of ["events", "poll"] as const) {
    test(`a finished file dropped while the loop waits is filed within a second (${mode})`, async () => {
      const { c, store, inbox, filed } = parts({ polling: mode === "poll", tick: 30 });
      await c.start();
      c.expect("bot", GID, "chrome");
      await Bun.sleep(300);
      const started = performance.now();
      writeFileSync(join(inbox, `bot_${GID}.mp4.part`), FINISHED);
      renameSync(join(inbox, `bot_${GID}.mp4.part`), join(inbox, `bot_${GID}.mp4`));
      for (let i = 0; i < 100 && !filed.length; i++) await Bun.sleep(10);
      expect(filed).toEqual(["bot"]);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(readdirSync(inbox)).toEqual([]);
      expect(await store.list("bot", "recordings")).toHaveLength(1);
      for (let i = 0; i < 50 && c.running; i++) await Bun.sleep(10);
      expect(c.running).toBe(false);
      await c.stop();
    });
  }
});

test("a growing file that completes with no event the watcher sees is filed within a few seconds, not a tick", async () => {
  // Polling once a minute: the watcher sees nothing in time, so only the collector's own look finds it.
  const { c, store, inbox, filed } = parts({ polling: true, pollMs: 60_000, tick: 30 });
  const path = join(inbox, `bot_${GID}.mp4`);
  writeFileSync(path, BODY);
  c.expect("bot", GID, "chrome");
  await c.start();
  await Bun.sleep(300);
  expect(filed).toEqual([]);
  writeFileSync(path, FINISHED);
  for (let i = 0; i < 50 && !filed.length; i++) await Bun.sleep(100);
  expect(filed).toEqual(["bot"]);
  expect(await store.list("bot", "recordings")).toHaveLength(1);
  await c.stop();
});

describe("the boundary", () => {
  test("recordings imports no protocol code, no Grid client and no selenium", async () => {
    const dir = join(import.meta.dir, "..", "..", "..", "src", "recordings");
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
      const text = await Bun.file(join(dir, file)).text();
      const imports = [...text.matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]!);
      for (const spec of imports) {
        expect(`${file}: ${spec}`).not.toMatch(
          /selenium|elysia|@modelcontextprotocol|\/surfaces\/|\/grid\/|\/actions\/|\/workspaces\//,
        );
      }
    }
  });
});
