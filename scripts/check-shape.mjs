// `npm run check`'s rules for the shape of the tree (docs/architecture.md): no import cycle (madge),
// every import allowed by the layering table (LAYERS: which folder may import which), no module-level
// mutable state outside src/in-page/ (MODULE_STATE_ALLOWED names the few left, each with its reason),
// no `export … from` outside an index.ts, no export nothing uses (knip, with tests, benches and
// scripts as entries), no source file over 400 lines (a warning above 350), no duplicated block of 6
// lines or more (jscpd). Prints each broken rule; exits 1 on any.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const DIRS = ["src"];
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

// --layers: the layering table and the imports alone (a test's copy of the tree checks a new capability).
const layersOnly = process.argv.includes("--layers");

// Cycles, as madge counts them (type-only imports included: a type import still ties two modules).
if (!layersOnly) {
  const madge = spawnSync(bin("madge"), ["--circular", "--no-spinner", "--extensions", "ts,tsx", ...DIRS], {
    cwd: root,
    encoding: "utf8",
  });
  if (madge.status !== 0) problems.push(`import cycles (madge --circular):\n${madge.stdout.trim()}`);
}

// The layering table (docs/architecture.md): which part of the tree may import which. A part is a
// folder of src/ ("grid/") or a file at src/'s top ("errors.ts"); what a part may import is a list
// of parts whose rows come before its own: never a single file of another part (no exception),
// never a part after it, so no two parts import each other. Imports within a part are free; a part
// missing here is refused until it has its row. Read top-down it goes from the base to the surfaces.
const BASE = ["kit/", "errors.ts", "log.ts"];
const PLATFORM = [...BASE, "config/", "http/", "store/", "grid/", "in-page/"];
// What every capability builds on: what an action is, its ports and the pipeline's contract
// (actions/), the secrets, the admin's contract and a capability's descriptor (admin/), a call's
// pipeline (workspaces/), the UI's shared parts (views/).
const CAPABILITY = [...PLATFORM, "actions/", "admin/", "secrets/", "workspaces/", "views/"];
// A capability folder (its actions, resources, admin routes, row part and views) is one src/registry.ts
// lists (`./<folder>/index.ts`), and it has one rule: the base and the browser's selectors and landing.
// The rows after the rule's are the capabilities whose row is another: narrower, or reaching another.
const CAPABILITY_RULE = [...CAPABILITY, "browser/"];
const NOT_THE_RULE = {
  // Files the Grid's recordings into files/'s store (not listed: it has no descriptor).
  "recordings/": [...BASE, "config/", "files/"],
  "timeline/": [...CAPABILITY_RULE, "files/", "flows/"],
  // workspace://current and the agent guide: the resources of no other capability.
  "resources/": CAPABILITY,
};
const registered = [
  ...readFileSync(join(root, "src/registry.ts"), "utf8").matchAll(/from "\.\/([\w-]+)\/index\.ts"/g),
].map((m) => `${m[1]}/`);
const BELOW_CAPABILITIES = ["browser/", "secrets/"];
const ruled = registered.filter((f) => !BELOW_CAPABILITIES.includes(f) && !(f in NOT_THE_RULE));
const CAPABILITIES = ["browser/", ...ruled, ...Object.keys(NOT_THE_RULE)];
const BELOW_SURFACES = [...CAPABILITY, ...CAPABILITIES, "metrics/", "services.ts", "registry.ts"];
const LAYERS = {
  "kit/": [],
  "errors.ts": [],
  "log.ts": ["errors.ts"],
  // Runs in the browser's sandbox: nothing of the server.
  "in-page/": [],
  "config/": BASE,
  "http/": [...BASE, "config/"],
  "store/": [...BASE, "config/"],
  "grid/": [...BASE, "in-page/"],
  // The base: what an action and a resource are, what a handler is handed, a call's shapes.
  "actions/": PLATFORM,
  "admin/": [...PLATFORM, "actions/"],
  "secrets/": [...BASE, "config/", "grid/", "in-page/", "actions/", "admin/"],
  "workspaces/": [...PLATFORM, "actions/", "secrets/"],
  // The admin UI's shared layout, parts, URLs and formats; each pane's own view is in its capability.
  "views/": BASE,
  "browser/": CAPABILITY,
  ...Object.fromEntries(ruled.map((f) => [f, CAPABILITY_RULE])),
  ...NOT_THE_RULE,
  // GET /metrics: each part's figures, read where they live.
  "metrics/": [...PLATFORM, "admin/", "workspaces/"],
  // The server's whole set, built in app.ts: what the surfaces are handed.
  "services.ts": [...CAPABILITY, ...CAPABILITIES],
  // The capabilities, listed once: each folder's descriptor.
  "registry.ts": [...CAPABILITY, ...CAPABILITIES, "services.ts"],
  // Surfaces render what is below them; only the composition root mounts them.
  "surfaces/": BELOW_SURFACES,
  "app.ts": [...BELOW_SURFACES, "surfaces/"],
  "main.ts": [...BELOW_SURFACES, "app.ts"],
};

// The table itself: each row names only parts whose rows are above it.
{
  const seen = new Set();
  for (const [part, may] of Object.entries(LAYERS)) {
    for (const m of may) {
      if (!(m in LAYERS))
        problems.push(`LAYERS: ${part} may import ${m}, which is no part (a file of a part is no exception)`);
      else if (!seen.has(m)) problems.push(`LAYERS: ${part} may import ${m}, whose row is not above its own`);
    }
    seen.add(part);
  }
}

// docs/architecture.md shows the same table; `node scripts/check-shape.mjs --table` prints it.
const layerTable = () =>
  [
    "| part | may import |",
    "| ---- | ---------- |",
    ...Object.entries(LAYERS).map(
      ([part, may]) => `| \`${part}\` | ${may.length ? may.map((m) => `\`${m}\``).join(" ") : "nothing"} |`,
    ),
  ].join("\n");
if (process.argv.includes("--table")) {
  console.log(layerTable());
  process.exit(0);
}
// Compared cell by cell: the doc's copy may be padded into columns.
const rowsOf = (text) =>
  text
    .split("\n")
    .map((l) => l.trim().replace(/\s+/g, " ").replace(/-{3,}/g, "---"))
    .filter((l) => l.startsWith("| "))
    .join("\n");
if (
  !layersOnly &&
  !rowsOf(readFileSync(join(root, "docs/architecture.md"), "utf8")).includes(rowsOf(layerTable()))
)
  problems.push(
    "docs/architecture.md's layering table is not LAYERS: paste `node scripts/check-shape.mjs --table` there",
  );

/** The part a path (from the root) belongs to, or null outside src/. */
function partOf(path) {
  if (!path.startsWith("src/")) return null;
  const rest = path.slice(4);
  const slash = rest.indexOf("/");
  return slash < 0 ? rest : rest.slice(0, slash + 1);
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
for (const file of files) {
  const from = partOf(file);
  const allowed = LAYERS[from];
  if (!allowed) {
    problems.push(
      `${file}: its part ${from} has no row in the layering table (scripts/check-shape.mjs LAYERS)`,
    );
    continue;
  }
  const text = readFileSync(join(root, file), "utf8");
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    if (!spec?.startsWith(".")) continue;
    const target = relative(root, resolve(root, dirname(file), spec));
    const to = partOf(target);
    if (to === null || to === from) continue;
    const named = target.slice(4);
    if (!allowed.includes(to) && !allowed.includes(named))
      problems.push(
        `${file} imports ${target}: the layering table lets ${from} import ${allowed.join(", ") || "nothing"}`,
      );
  }
}

if (layersOnly) {
  if (problems.length) {
    console.error(`the layering (docs/architecture.md):\n- ${problems.join("\n- ")}`);
    process.exit(1);
  }
  console.log(`layers: every import of ${files.length} files as the layering table allows`);
  process.exit(0);
}

// Module state: what a module holds at its top level is shared by every server in the process and
// every test in a file. State has an owner made in the composition root (src/app.ts) and handed
// down; a module keeps constants only. Flagged: a top-level `let`/`var`; a top-level `const` made a
// Map, Set, WeakMap, WeakSet, AsyncLocalStorage, empty array or empty object, unless its UPPER_CASE
// name says it is a constant and nothing in the file changes it; a class's `static` field that is
// not readonly. src/in-page/ runs in the page, one copy per document: exempt. None is left: a
// module that must keep state is named here with its reason, as [file, why].
const MODULE_STATE_ALLOWED = [];
const STATE_LINE = [
  /^(?:export\s+)?(?:let|var)\s+(\w+)/,
  /^(?:export\s+)?const\s+(\w+)\s*(?::[^=]+)?=\s*new\s+(?:Map|Set|WeakMap|WeakSet|AsyncLocalStorage)\b/,
  /^(?:export\s+)?const\s+(\w+)\s*(?::[^=]+)?=\s*\[\s*\]/,
  /^(?:export\s+)?const\s+(\w+)\s*(?::[^=]+)?=\s*\{\s*\};?\s*$/,
  /^\s+(?:(?:private|protected|public)\s+)?static\s+(?!readonly\b)(\w+)\s*[:=]/,
];
const allowedState = new Map(MODULE_STATE_ALLOWED);
for (const file of files) {
  if (file.startsWith("src/in-page/") || !file.startsWith("src/")) continue;
  const text = readFileSync(join(root, file), "utf8");
  const found = [];
  text.split("\n").forEach((line, i) => {
    for (const rule of STATE_LINE) {
      const m = rule.exec(line);
      if (!m) continue;
      const name = m[1];
      const constant = /^[A-Z][A-Z0-9_]*$/.test(name) && !line.startsWith("let") && !line.startsWith("var");
      const changed = new RegExp(
        `\\b${name}\\s*\\.\\s*(?:set|add|delete|clear|push|pop|shift|unshift|splice)\\(`,
      );
      if (constant && !rule.source.includes("static") && !changed.test(text)) continue;
      found.push(`${file}:${i + 1} ${name}`);
    }
  });
  if (found.length && !allowedState.has(file))
    problems.push(`module state (give it an owner made in src/app.ts): ${found.join(", ")}`);
  if (!found.length && allowedState.has(file))
    problems.push(`${file} holds no module state now: take it off MODULE_STATE_ALLOWED`);
}

// Bodies: the app reads a request's body in one place, Elysia's parse stage, by the parser a route
// names where it is declared (`parse: bodyParser(…)`, src/http/body.ts); its handler is handed it.
// Flagged: reading a request's body anywhere else.
const BODY_READ =
  /\brequest\s*\.\s*(?:json|text|formData|arrayBuffer|blob|bytes)\s*\(|\brequest\s*\.\s*body\s*\.\s*getReader\b/;
for (const file of files) {
  if (!file.startsWith("src/") || file === "src/http/body.ts") continue;
  readFileSync(join(root, file), "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (!BODY_READ.test(line)) return;
      problems.push(
        `${file}:${i + 1} reads a request body by hand: name a parser on its route (parse: bodyParser(…)) and take \`body\``,
      );
    });
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
  `shape: no cycle, every import as the layering table allows, no module state (${MODULE_STATE_ALLOWED.length} allowed), no body read by hand, no re-export outside an index, no unused export, ${files.length} files of ${MAX_LINES} lines or fewer, no clone`,
);
