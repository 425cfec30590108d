// Where each source file's tests are: unit tests mirror src/ (test/unit/<folder>/, or project/ for
// the repository's own rules), and every source file under src/ is reached by some test,
// through the imports of the test files (or run as a process by one). Fails when a file is reached
// by no test at all, or a unit test sits outside a folder named for a source folder. `--list` names
// the files no test imports itself (tested through another file), `--map` each source file with the
// tests that import it: the way to find a behaviour's test.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const walk = (dir) =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" || e.name === "fixtures" ? [] : walk(path);
    return /\.(tsx?|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  });
const sources = walk("src");
const tests = walk("test").filter((f) => f.endsWith(".test.ts"));
const support = walk("test").filter((f) => !f.endsWith(".test.ts"));

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
const importsOf = new Map();
for (const file of [...sources, ...tests, ...support]) {
  const out = [];
  for (const m of readFileSync(join(root, file), "utf8").matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    if (!spec?.startsWith(".")) continue;
    const target = relative(root, resolve(root, dirname(file), spec));
    if (importsOf.has(target) || existsSync(join(root, target))) out.push(target);
  }
  importsOf.set(file, out);
}

/** Every file `file` leads to, import after import, itself included. */
function closure(file) {
  const seen = new Set();
  const stack = [file];
  while (stack.length) {
    const f = stack.pop();
    if (seen.has(f)) continue;
    seen.add(f);
    stack.push(...(importsOf.get(f) ?? []));
  }
  return seen;
}

// Direct: the test file itself imports the source file.
const direct = new Map(sources.map((s) => [s, new Set()]));
// Reached: anything a test file leads to, import after import.
const reached = new Set();
for (const test of tests) {
  const seen = new Set();
  const stack = [test];
  while (stack.length) {
    const file = stack.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    for (const t of importsOf.get(file) ?? []) {
      if (direct.has(t) && file === test) direct.get(t).add(test);
      stack.push(t);
    }
  }
  for (const f of seen) reached.add(f);
  // A test that runs a source file as its own process names its path (`bun src/main.ts`).
  const text = readFileSync(join(root, test), "utf8");
  for (const s of sources)
    if (!seen.has(s) && text.includes(`"${s}"`)) {
      direct.get(s).add(test);
      reached.add(s);
      for (const f of closure(s)) reached.add(f);
    }
}

const problems = [];
const FOLDERS = new Set(
  readdirSync(join(root, "src"), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name),
);
for (const e of readdirSync(join(root, "test/unit"), { withFileTypes: true })) {
  if (!e.isDirectory())
    problems.push(`test/unit/${e.name}: a unit test goes in test/unit/<the src folder it tests>/`);
  else if (!FOLDERS.has(e.name) && e.name !== "project")
    problems.push(
      `test/unit/${e.name}/ names no folder of src/ (project/ is for the repository's own rules)`,
    );
}
const unreached = sources.filter((s) => !reached.has(s));
for (const s of unreached) problems.push(`${s} is reached by no test`);

if (process.argv.includes("--map")) {
  for (const [s, ts] of direct) console.log(`${s}: ${[...ts].sort().join(" ") || "-"}`);
  process.exit(0);
}
const indirect = sources.filter((s) => direct.get(s).size === 0 && reached.has(s));
if (process.argv.includes("--list"))
  console.log(
    `tested only through other files (a test of their own goes in test/unit/<folder>/):\n- ${indirect.join("\n- ")}`,
  );
if (problems.length) {
  console.error(`where the tests are:\n- ${problems.join("\n- ")}`);
  process.exit(1);
}
console.log(
  `tests: unit tests mirror src/, all ${sources.length} source files reached by a test, ${sources.length - indirect.length} imported by one (--list names the ${indirect.length} others, --map each file's tests)`,
);
