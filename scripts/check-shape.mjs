// `npm run check`'s rules for the shape of the tree (docs/architecture.md): no import cycle (madge),
// no file outside src/surfaces/ and src/app.ts importing src/surfaces/, every source file under
// 350 lines, no duplicated block of 6 lines or more (jscpd). Prints each broken rule; exits 1 on any.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DIRS = ["src", "views"];
const MAX_LINES = 350;
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

// File size.
for (const file of files) {
  const lines = readFileSync(join(root, file), "utf8").split("\n").length - 1;
  if (lines >= MAX_LINES) problems.push(`${file} has ${lines} lines: split it under ${MAX_LINES}`);
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

if (problems.length) {
  console.error(`the shape of the tree (docs/architecture.md):\n- ${problems.join("\n- ")}`);
  process.exit(1);
}
console.log(
  `shape: no cycle, surfaces imported only by surfaces and app.ts, ${files.length} files under ${MAX_LINES} lines, no clone`,
);
