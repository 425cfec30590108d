// The data directory: names before paths, the old-layout refusal, the folders, never overwriting,
// moving in across filesystems, and the recording notes.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
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
import { ConfigError } from "../../../src/config/sources.ts";
import { candidates, validFileName } from "../../../src/files/file-names.ts";
import { checkLayout, filePath, oldLayout } from "../../../src/files/layout.ts";
import { FileStore } from "../../../src/files/store.ts";
import { InvalidName, validGridId } from "../../../src/kit/names.ts";

const GID = "8f3d6dc2a1b04e6f9c1d2e3f4a5b6c7d";
let root: string;
let store: FileStore;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "sf-files-"));
  store = new FileStore(root);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("names", () => {
  test("Grid ids: 32 hex and dashed UUIDs pass; anything that could be a path does not", () => {
    expect(validGridId(GID)).toBe(GID);
    expect(validGridId("bf532044-b55e-4c1a-9f0e-1234567890ab")).toBe("bf532044-b55e-4c1a-9f0e-1234567890ab");
    for (const bad of ["../x", "a/b", "", "x".repeat(80), ".hidden"]) {
      expect(() => validGridId(bad)).toThrow(InvalidName);
    }
    expect(() => validGridId("../x")).toThrow("'../x' is not a Grid session id");
  });

  test("candidates are the browser's second-download rule", () => {
    const it = candidates("a.mp4");
    expect([it.next().value, it.next().value, it.next().value]).toEqual(["a.mp4", "a (1).mp4", "a (2).mp4"]);
    const bare = candidates("README");
    bare.next();
    expect(bare.next().value).toBe("README (1)");
    const tar = candidates("x.tar.gz");
    tar.next();
    expect(tar.next().value).toBe("x.tar (1).gz");
  });

  test("file names that leave their folder, hide, or carry control characters are refused", () => {
    expect(validFileName("rec-20261008-1403 (1).mp4")).toBe("rec-20261008-1403 (1).mp4");
    for (const bad of ["", "..", "../x", "a/b", "a\\b", ".link-key", "a\u0000b", " a"]) {
      expect(() => validFileName(bad)).toThrow(InvalidName);
      expect(() => filePath(root, "bot", "files", bad)).toThrow(InvalidName);
    }
    expect(() => filePath(root, "../bot", "files", "a.txt")).toThrow(InvalidName);
    expect(filePath(root, "bot", "files", "a.txt")).toBe(join(root, "sessions", "bot", "files", "a.txt"));
  });
});

describe("the layout", () => {
  test("workspace folders left at the top stop the boot, named and sorted; the inbox does not", () => {
    mkdirSync(join(root, "deskagent", "screenshots"), { recursive: true });
    mkdirSync(join(root, "global", "flows"), { recursive: true });
    mkdirSync(join(root, "recordings"));
    mkdirSync(join(root, "sessions", "bot", "files"), { recursive: true });
    writeFileSync(join(root, "records.sqlite"), "");
    expect(oldLayout(root)).toEqual(["deskagent", "global"]);
    let err: unknown;
    try {
      checkLayout(root);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe(
      `deskagent, global in ${root} are session folders from before the sessions/ layout: move them into ${root}/sessions/`,
    );
  });

  test("a data directory laid out the new way, or missing, boots", () => {
    mkdirSync(join(root, "recordings"));
    mkdirSync(join(root, "sessions", "bot", "flows"), { recursive: true });
    expect(() => checkLayout(root)).not.toThrow();
    expect(oldLayout(join(root, "absent"))).toEqual([]);
  });
});

describe("the folders", () => {
  test("a file written for bot lands under sessions/bot/files; a second one never overwrites", async () => {
    const one = await store.write("bot", "files", "a.txt", new TextEncoder().encode("x"));
    expect(one.path).toBe(join(root, "sessions", "bot", "files", "a.txt"));
    const two = await store.write("bot", "files", "a.txt", new TextEncoder().encode("y"));
    expect(two.name).toBe("a (1).txt");
    expect(readFileSync(one.path, "utf8")).toBe("x");
  });

  test("listings hold regular files only, newest first, never the notes", async () => {
    await store.write("bot", "recordings", "old.mp4", new Uint8Array([1]));
    await Bun.sleep(20);
    await store.write("bot", "recordings", "new.mp4", new Uint8Array([1, 2]));
    store.writeNote("bot", GID, { opened: 1, ended: null, browser: "chrome" });
    const listed = await store.list("bot", "recordings");
    expect(listed.map((f) => f.name)).toEqual(["new.mp4", "old.mp4"]);
    expect(listed[0]!.size).toBe(2);
  });

  test("moving in twice to one name lands the second as (1), and both sources go", async () => {
    const inbox = join(root, "recordings");
    mkdirSync(inbox);
    writeFileSync(join(inbox, `bot_${GID}.mp4`), "one");
    writeFileSync(join(inbox, "x.mp4"), "two");
    const first = await store.moveIn(
      "bot",
      join(inbox, `bot_${GID}.mp4`),
      "rec-20261008-1403.mp4",
      "recordings",
    );
    const second = await store.moveIn("bot", join(inbox, "x.mp4"), "rec-20261008-1403.mp4", "recordings");
    expect(first.name).toBe("rec-20261008-1403.mp4");
    expect(second.name).toBe("rec-20261008-1403 (1).mp4");
    expect(existsSync(join(inbox, `bot_${GID}.mp4`))).toBe(false);
    expect(existsSync(join(inbox, "x.mp4"))).toBe(false);
    expect(readFileSync(second.path, "utf8")).toBe("two");
  });

  test("where hard links fail with EXDEV, the file is copied and the source removed", async () => {
    const faked = new FileStore(root, {
      link: async () => {
        throw Object.assign(new Error("EXDEV: cross-device link not permitted"), {
          code: "EXDEV",
          errno: 18,
        });
      },
    });
    const src = join(root, "v.mp4");
    writeFileSync(src, "data");
    const landed = await faked.moveIn("bot", src, "rec.mp4", "recordings");
    expect(readFileSync(landed.path, "utf8")).toBe("data");
    expect(existsSync(src)).toBe(false);
  });

  test("a move across two real filesystems copies (tmpfs to the data dir)", async () => {
    const shm = mkdtempSync("/dev/shm/sf-src-");
    try {
      const src = join(shm, "v.mp4");
      const big = new Uint8Array(3 * 1024 * 1024 + 7).map((_, i) => i % 251);
      writeFileSync(src, big);
      const landed = await store.moveIn("bot", src, "rec.mp4", "recordings");
      expect(new Uint8Array(readFileSync(landed.path))).toEqual(big);
      expect(existsSync(src)).toBe(false);
    } finally {
      rmSync(shm, { recursive: true, force: true });
    }
  });

  test("nothing lands in Files under a reserved folder name", async () => {
    const src = join(root, "recordings-file");
    writeFileSync(src, "v");
    const landed = await store.moveIn("bot", src, "recordings", "files");
    expect(landed.name).toBe("recordings (1)");
    const written = await store.write("bot", "files", "screenshots", new Uint8Array([1]));
    expect(written.name).toBe("screenshots (1)");
  });

  test("clearing recordings leaves Files and the notes; Files itself never clears in bulk", async () => {
    await store.write("bot", "recordings", "a.mp4", new Uint8Array([1]));
    await store.write("bot", "files", "keep.txt", new Uint8Array([1]));
    store.writeNote("bot", GID, { opened: 1, ended: null, browser: "chrome" });
    expect(await store.clear("bot", "recordings")).toBe(1);
    expect(await store.list("bot", "recordings")).toEqual([]);
    expect(store.notes()).toHaveLength(1);
    expect((await store.list("bot", "files")).map((f) => f.name)).toEqual(["keep.txt"]);
    await expect(store.clear("bot", "files" as never)).rejects.toThrow("never cleared");
  });
});

describe("notes", () => {
  test("written, listed, deleted; a second delete says it was not there", () => {
    const note = { opened: 1, ended: null, browser: "chrome" };
    store.writeNote("bot", GID, note);
    expect(existsSync(join(root, "sessions", "bot", "recordings", ".pending", `${GID}.json`))).toBe(true);
    expect(existsSync(join(root, "sessions", "bot", "recordings", ".pending", `${GID}.tmp`))).toBe(false);
    expect(store.notes()).toEqual([{ workspace: "bot", gridId: GID, note }]);
    expect(store.deleteNote("bot", GID)).toBe(true);
    expect(store.notes()).toEqual([]);
    expect(store.deleteNote("bot", GID)).toBe(false);
  });

  test("a broken note is skipped, its workspace told (never its file), and is not deleted", () => {
    store.writeNote("bot", GID, { opened: 1, ended: null, browser: "chrome" });
    const path = join(root, "sessions", "bot", "recordings", ".pending", `${GID}.json`);
    writeFileSync(path, "{not json");
    const told: string[] = [];
    expect(store.notes((w) => told.push(w))).toEqual([]);
    expect(told).toEqual(["bot"]);
    expect(existsSync(path)).toBe(true);
  });

  test("a note for an id that is not a Grid id is refused before it becomes a path", () => {
    expect(() => store.writeNote("bot", "../../x", { opened: 1, ended: null, browser: "chrome" })).toThrow(
      InvalidName,
    );
  });
});

describe("filing a recording so that a stop at any point leaves nothing half-filed", () => {
  const NAME = "rec-20261008-1403.mp4";
  const folder = () => join(root, "sessions", "bot", "recordings");
  const pending = () => join(folder(), ".pending");
  const visible = () => readdirSync(folder()).filter((f) => !f.startsWith("."));
  const noLinks = () =>
    new FileStore(root, {
      link: async () => {
        throw Object.assign(new Error("EPERM: operation not permitted"), { code: "EPERM" });
      },
    });
  const owed = (s: FileStore, filing?: string) =>
    s.writeNote("bot", GID, { opened: 1, ended: 2, browser: "chrome", ...(filing ? { filing } : {}) });
  const inboxFile = (text = "video") => {
    mkdirSync(join(root, "inbox"), { recursive: true });
    const p = join(root, "inbox", `bot_${GID}.mp4`);
    writeFileSync(p, text);
    return p;
  };

  test("filed under its name, the inbox file, the stage and the note gone; a second run finds nothing owed", async () => {
    owed(store);
    const src = inboxFile();
    const landed = await store.fileRecording("bot", GID, src, NAME);
    expect(landed!.name).toBe(NAME);
    expect(readFileSync(landed!.path, "utf8")).toBe("video");
    expect(existsSync(src)).toBe(false);
    expect(readdirSync(pending())).toEqual([]);
    expect(await store.fileRecording("bot", GID, src, NAME)).toBeNull();
  });

  test("a name already taken is never written over: the recording lands as (1)", async () => {
    owed(store);
    mkdirSync(folder(), { recursive: true });
    writeFileSync(join(folder(), NAME), "someone else's");
    const landed = await store.fileRecording("bot", GID, inboxFile(), NAME);
    expect(landed!.name).toBe("rec-20261008-1403 (1).mp4");
    expect(readFileSync(join(folder(), NAME), "utf8")).toBe("someone else's");
  });

  test("without hard links: staged by a copy renamed into place, a stopped copy's .part replaced, the name claimed then filled at once", async () => {
    const s = noLinks();
    owed(s);
    mkdirSync(pending(), { recursive: true });
    writeFileSync(join(pending(), `${GID}.mp4.part`), "vid"); // a copy that stopped half-way
    const src = inboxFile();
    const landed = await s.fileRecording("bot", GID, src, NAME);
    expect(readFileSync(landed!.path, "utf8")).toBe("video");
    expect(visible()).toEqual([NAME]);
    expect(readdirSync(pending())).toEqual([]);
    expect(existsSync(src)).toBe(false);
  });

  test("stopped after the name was claimed (empty), before the stage went over it: the next run fills that name", async () => {
    const s = noLinks();
    mkdirSync(pending(), { recursive: true });
    writeFileSync(join(pending(), `${GID}.mp4`), "video");
    writeFileSync(join(folder(), NAME), "");
    owed(s, NAME);
    const landed = await s.fileRecording("bot", GID, inboxFile(), NAME);
    expect(landed!.name).toBe(NAME);
    expect(readFileSync(landed!.path, "utf8")).toBe("video");
    expect(visible()).toEqual([NAME]);
  });

  test("stopped after everything but the note: the next run only deletes the note", async () => {
    mkdirSync(folder(), { recursive: true });
    writeFileSync(join(folder(), NAME), "video");
    owed(store, NAME);
    const landed = await store.fileRecording("bot", GID, join(root, "inbox", "gone.mp4"), NAME);
    expect(landed!.name).toBe(NAME);
    expect(visible()).toEqual([NAME]);
    expect(store.notes()).toEqual([]);
  });
});
