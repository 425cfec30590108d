// `npm run check`'s rules for the shape of the tree (docs/architecture.md): no import cycle (madge),
// no file outside src/surfaces/ and src/app.ts importing src/surfaces/, no `export … from` outside an
// index.ts, no export nothing uses (knip, with tests, benches and scripts as entries), no source file
// over 400 lines (a warning above 350), no duplicated block of 6 lines or more (jscpd). Prints each
// broken rule; exits 1 on any.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DIRS = ["src", "views"];
const MAX_LINES = 400;
const WARN_LINES = 350;
const warnings = [];
const bin = (name) => join(root, "node_modules", ".bin", name);
const problems = [];

function sources(dir) {
  const out = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}
const files = DIRS.flatMap(sources);

// Cycles, as madge counts them (type-only imports included: a type import still ties two modules).
const madge = spawnSync(bin("madge"), ["--circular", "--no-spinner", "--extensions", "ts,tsx", ...DIRS], {
  cwd: root,
  encoding: "utf8",
});
if (madge.status !== 0) problems.push(`import cycles (madge --circular):\n${madge.stdout.trim()}`);

// Surfaces render; nothing below them imports them.
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
for (const file of files) {
  if (file.startsWith("src/surfaces/") || file === "src/app.ts") continue;
  const text = readFileSync(join(root, file), "utf8");
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    if (!spec?.startsWith(".")) continue;
    const target = relative(root, resolve(root, dirname(file), spec));
    if (target.startsWith("src/surfaces/") || target === "src/surfaces")
      problems.push(`${file} imports ${target}: only src/surfaces/ and src/app.ts may`);
  }
}

// Re-exports: import from the defining module; only a folder's index.ts gathers.
const REEXPORT = /(?:^|\n)\s*export\s+(?:type\s+)?(?:\*|\{[^}]*\})\s*from\s*["'][^"']+["']/;
for (const file of files) {
  if (file.endsWith("/index.ts")) continue;
  if (REEXPORT.test(readFileSync(join(root, file), "utf8")))
    problems.push(`${file} re-exports (export … from): import from the defining module instead`);
}

// Unused exports and types (knip.json names the entries: the CLI, tests, benches, scripts).
const knip = spawnSync(bin("knip"), ["--no-progress", "--include", "exports,types,nsExports,nsTypes"], {
  cwd: root,
  encoding: "utf8",
});
if (knip.status !== 0) problems.push(`unused exports (knip):\n${knip.stdout.trim()}`);

// File size: files follow concepts; past WARN_LINES one is probably two.
for (const file of files) {
  const lines = readFileSync(join(root, file), "utf8").split("\n").length - 1;
  if (lines > MAX_LINES) problems.push(`${file} has ${lines} lines: split it to ${MAX_LINES} or fewer`);
  else if (lines > WARN_LINES)
    warnings.push(`${file} has ${lines} lines (over ${WARN_LINES}): is it two concepts?`);
}

// Duplicated blocks.
const jscpd = spawnSync(
  bin("jscpd"),
  ["--min-lines", "6", "--reporters", "console", "--exit-code", "1", "--silent", ...DIRS],
  { cwd: root, encoding: "utf8" },
);
if (jscpd.status !== 0) {
  const full = spawnSync(bin("jscpd"), ["--min-lines", "6", "--reporters", "console", ...DIRS], {
    cwd: root,
    encoding: "utf8",
  });
  const clones = full.stdout
    .split("\n")
    .filter((l) => /Clone found| - |^\s+\S+\.tsx? \[/.test(l))
    .join("\n");
  problems.push(`duplicated blocks of 6 lines or more (jscpd):\n${clones.trim()}`);
}

if (warnings.length) console.log(`warnings:\n- ${warnings.join("\n- ")}`);
if (problems.length) {
  console.error(`the shape of the tree (docs/architecture.md):\n- ${problems.join("\n- ")}`);
  process.exit(1);
}
console.log(
  `shape: no cycle, surfaces imported only by surfaces and app.ts, no re-export outside an index, no unused export, ${files.length} files of ${MAX_LINES} lines or fewer, no clone`,
);
