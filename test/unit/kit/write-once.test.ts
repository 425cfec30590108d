// Servers booting together on one new data dir each make its key files at the same instant: every
// one of them must read the one key that won, never a file half written.
import { expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeOnce } from "../../../src/kit/write-once.ts";

const ROOT = join(import.meta.dir, "..", "..", "..");
const BUN = join(ROOT, "node_modules", ".bin", "bun");
const ROUNDS = 150;

test("the first writer wins whole; a second finds the file and leaves nothing aside", () => {
  const dir = mkdtempSync(join(tmpdir(), "sf-once-"));
  try {
    const file = join(dir, "key");
    expect(writeOnce(file, "one\n")).toBe(true);
    expect(writeOnce(file, "two\n")).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("one\n");
    expect(readdirSync(dir)).toEqual(["key"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("processes making the link key of one new data dir at the same instant all read the same whole key", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sf-once-race-"));
  try {
    const start = Date.now() + 1500;
    // Each process makes round r's key at start + 4r ms, so all of them meet in every round.
    const child = `
      const { linkKey } = await import(${JSON.stringify(join(ROOT, "src/files/links.ts"))});
      const { mkdirSync } = await import("node:fs");
      const out = [];
      for (let r = 0; r < ${ROUNDS}; r++) {
        const d = ${JSON.stringify(dir)} + "/" + r;
        mkdirSync(d, { recursive: true });
        while (Date.now() < ${start} + r * 4) {}
        try { out.push(Buffer.from(linkKey(d)).toString("hex")); } catch (e) { out.push("error: " + e.message); }
      }
      console.log(JSON.stringify(out));
    `;
    const procs = Array.from({ length: 4 }, () =>
      Bun.spawn([BUN, "-e", child], { cwd: ROOT, stdout: "pipe", stderr: "inherit" }),
    );
    const outs = await Promise.all(
      procs.map(async (p) => JSON.parse(await new Response(p.stdout).text()) as string[]),
    );
    for (let r = 0; r < ROUNDS; r++) {
      const keys = outs.map((o) => o[r]);
      expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
      expect(new Set(keys).size).toBe(1);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);
