// Generates the action reference (docs/actions/*.md) from the action table.
// `bun scripts/gen-docs.ts` writes it; `--check` fails when a page is stale (CI runs the check).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { AnyAction } from "../src/actions/action.ts";
import { ACTIONS, RESOURCES } from "../src/registry.ts";
import { jsonSchema } from "../src/surfaces/json-schema.ts";
import { ERROR_MEANINGS } from "../src/surfaces/openapi.ts";

export const DOCS_DIR = resolve(import.meta.dir, "..", "docs", "actions");

type Schema = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

function typeOf(s: Schema): string {
  if (s.enum) return s.enum.map((v) => `\`${JSON.stringify(v)}\``).join(" · ");
  if (s.anyOf || s.oneOf) return [...(s.anyOf ?? s.oneOf ?? [])].map(typeOf).join(" or ");
  if (Array.isArray(s.type)) return s.type.join(" or ");
  if (s.type === "array" && s.items) return `array of ${typeOf(s.items)}`;
  return s.type ?? "any";
}

/** The first sentence, with its full stop. */
const firstSentence = (text: string) => `${(text.split(". ")[0] ?? "").replace(/\.$/, "")}.`;

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

function parameters(action: AnyAction): string {
  const schema = jsonSchema(action.input, "input") as Schema;
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0) return "None.\n";
  const required = new Set(schema.required ?? []);
  const rows = props.map(
    ([name, s]) =>
      `| \`${name}\` | ${cell(typeOf(s))} | ${required.has(name) ? "yes" : "no"} | ${
        s.default === undefined ? "" : `\`${JSON.stringify(s.default)}\``
      } | ${cell(s.description ?? "")} |`,
  );
  return ["| Name | Type | Required | Default | Notes |", "|---|---|---|---|---|", ...rows, ""].join("\n");
}

function returns(action: AnyAction): string {
  const schema = jsonSchema(action.output, "output") as Schema;
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0) return "An object.\n";
  const rows = props.map(
    ([name, s]) => `| \`${name}\` | ${cell(typeOf(s))} | ${cell(s.description ?? "")} |`,
  );
  return ["| Field | Type | Notes |", "|---|---|---|", ...rows, ""].join("\n");
}

function example(action: AnyAction): string {
  const params = [...action.http.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1] as string);
  const sample: Record<string, unknown> = {};
  const schema = jsonSchema(action.input, "input") as Schema;
  for (const name of schema.required ?? []) sample[name] = `<${name}>`;
  const path = action.http.path.replace(/\{([a-z_]+)\}/g, (_m, p: string) => `<${p}>`);
  const body = Object.fromEntries(Object.entries(sample).filter(([k]) => !params.includes(k)));
  const hasBody = action.http.method === "POST" || action.http.method === "PUT";
  return [
    "MCP:",
    "",
    "```json",
    JSON.stringify({ name: action.name, arguments: sample }),
    "```",
    "",
    "HTTP:",
    "",
    "```sh",
    `curl -X ${action.http.method} "$SELENIUM_FLOW${path}" \\`,
    '  -H "Authorization: Bearer $TOKEN" -H "X-Workspace: $WORKSPACE"' +
      (hasBody ? ` \\\n  -H "Content-Type: application/json" -d '${JSON.stringify(body)}'` : ""),
    "```",
    "",
  ].join("\n");
}

const ROOT = resolve(import.meta.dir, "..");

/**
 * Hand-written notes for a page (`docs/notes/<tool>.md`), appended under the generated part. A
 * line `@include <path>` brings in a file of the repository as a fenced block (an example flow).
 */
function notes(action: AnyAction): string {
  const file = join(ROOT, "docs", "notes", `${action.name}.md`);
  if (!existsSync(file)) return "";
  const text = readFileSync(file, "utf8").replace(/^@include (\S+)$/gm, (_m, path: string) => {
    const lang = path.split(".").pop() ?? "";
    return `\`\`\`${lang}\n${readFileSync(join(ROOT, path), "utf8").trimEnd()}\n\`\`\``;
  });
  return `${text.trimEnd()}\n`;
}

export function page(action: AnyAction): string {
  const a = action.annotations;
  const traits = [
    a.readOnly ? "read-only" : null,
    a.destructive ? "destructive (hands the page an instruction)" : null,
    a.idempotent ? "idempotent" : null,
  ].filter(Boolean);
  return [
    `# ${action.name}`,
    "",
    action.title,
    "",
    "| | |",
    "|---|---|",
    `| MCP tool | \`${action.name}\` |`,
    `| HTTP | \`${action.http.method} ${action.http.path}\` |`,
    traits.length ? `| Traits | ${traits.join(", ")} |` : "",
    "",
    action.description,
    "",
    action.docs ?? "",
    "",
    "## Parameters",
    "",
    parameters(action),
    "Name the workspace with the `X-Workspace` header or `?workspace=<name>` (over MCP, on the `/mcp` URL).",
    "",
    "## Returns",
    "",
    returns(action),
    "## Errors",
    "",
    "| Status | Means |",
    "|---|---|",
    ...Object.entries(ERROR_MEANINGS).map(([s, m]) => `| ${s} | ${m} |`),
    "",
    "Over MCP the same failures arrive as a tool error.",
    "",
    "## Example",
    "",
    example(action),
    notes(action),
    "[← All actions](README.md)",
    "",
  ]
    .filter((l, i, all) => !(l === "" && all[i - 1] === ""))
    .join("\n");
}

export function index(): string {
  return [
    "# Actions",
    "",
    "Every action is an MCP tool and an HTTP endpoint. Generated from the action table by `bun scripts/gen-docs.ts`.",
    "",
    "| Tool | HTTP | What it does |",
    "|---|---|---|",
    ...ACTIONS.map(
      (a) =>
        `| [\`${a.name}\`](${a.name}.md) | \`${a.http.method} ${a.http.path}\` | ${cell(firstSentence(a.description))} |`,
    ),
    "",
    "## Resources",
    "",
    "| MCP resource | HTTP | What it holds |",
    "|---|---|---|",
    ...RESOURCES.map((r) => `| \`${r.uri}\` | \`GET ${r.http}\` | ${cell(firstSentence(r.description))} |`),
    "",
  ].join("\n");
}

export function generated(): Map<string, string> {
  const files = new Map<string, string>();
  files.set("README.md", index());
  for (const a of ACTIONS) files.set(`${a.name}.md`, page(a));
  return files;
}

/** The names of pages that differ from what the table generates (missing, stale or extra). */
export function stalePages(): string[] {
  const want = generated();
  const have = existsSync(DOCS_DIR) ? readdirSync(DOCS_DIR).filter((f) => f.endsWith(".md")) : [];
  const stale = [...want].filter(
    ([f, text]) => !existsSync(join(DOCS_DIR, f)) || readFileSync(join(DOCS_DIR, f), "utf8") !== text,
  );
  return [...stale.map(([f]) => f), ...have.filter((f) => !want.has(f))].sort();
}

if (import.meta.main) {
  if (process.argv.includes("--check")) {
    const stale = stalePages();
    if (stale.length) {
      console.error(`stale action docs: ${stale.join(", ")} — run bun scripts/gen-docs.ts`);
      process.exit(1);
    }
    console.error("action docs are current");
  } else {
    rmSync(DOCS_DIR, { recursive: true, force: true });
    mkdirSync(DOCS_DIR, { recursive: true });
    for (const [f, text] of generated()) writeFileSync(join(DOCS_DIR, f), text);
    console.error(`wrote ${generated().size} pages to docs/actions/`);
  }
}
