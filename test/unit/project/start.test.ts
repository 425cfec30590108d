// `npm start` off Debian: with no apt-get on PATH (or an apt-get that fails), it says what it
// needs and how to use a Grid of one's own (GRID_URL), and exits 1 without a stack.
import { afterAll, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../../..");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A PATH holding only node and sh (and `extra` scripts): no apt-get, Chromium, ChromeDriver or Java. */
function bareBin(extra: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "sf-bare-path-"));
  dirs.push(dir);
  symlinkSync(Bun.which("node")!, join(dir, "node"));
  symlinkSync(Bun.which("sh")!, join(dir, "sh"));
  for (const [name, script] of Object.entries(extra)) {
    writeFileSync(join(dir, name), `#!/bin/sh\n${script}\n`);
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

async function npmStart(path: string) {
  const proc = Bun.spawn([join(path, "node"), "scripts/start.mjs"], {
    cwd: ROOT,
    // No GRID_URL: npm start would run a local Grid.
    env: { PATH: path, HOME: tmpdir() },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { text: out + err, code };
}

const GRID_URL_LINE = /^\[setup\] {3}GRID_URL=http:\/\/127\.0\.0\.1:4444 npm start$/m;
const NO_STACK = (text: string) => {
  expect(text).not.toContain("ENOENT");
  expect(text).not.toMatch(/^\s+at /m);
  expect(text).not.toContain("node:internal");
};

test("no apt-get: it names what it needs, says how to point it at a Grid, and exits 1", async () => {
  const { text, code } = await npmStart(bareBin());
  expect(code).toBe(1);
  NO_STACK(text);
  expect(text).toContain(
    "[setup] npm start needs chromium, chromedriver, java (Debian's chromium, chromium-driver, openjdk-17-jre-headless), and this machine has no apt-get to install them",
  );
  expect(text).toMatch(GRID_URL_LINE);
  expect(text).toContain("SE_NODE_ENABLE_MANAGED_DOWNLOADS=true selenium/standalone-chrome");
});

test("an apt-get that fails: the same advice, with its exit code, and no stack", async () => {
  // A sudo that runs its command, so a run as another user than root reaches apt-get too.
  const { text, code } = await npmStart(
    bareBin({ "apt-get": "echo 'E: no network' >&2; exit 100", sudo: 'exec "$@"' }),
  );
  expect(code).toBe(1);
  NO_STACK(text);
  expect(text).toContain("[setup] installing chromium chromium-driver openjdk-17-jre-headless from Debian");
  expect(text).toContain("and apt-get could not install them (exit 100)");
  expect(text).toMatch(GRID_URL_LINE);
});
