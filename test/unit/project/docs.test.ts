// The generated action reference is current, and every action is both a tool and an endpoint.
import { expect, test } from "bun:test";
import { stalePages } from "../../../scripts/gen-docs.ts";
import { ACTIONS } from "../../../src/registry.ts";
import { toolOf } from "../../../src/surfaces/mcp-answers.ts";
import { openApiDocument } from "../../../src/surfaces/openapi.ts";
import { hints } from "../../support/mcp.ts";

test("docs/actions is what the action table generates (run bun scripts/gen-docs.ts)", () => {
  expect(stalePages()).toEqual([]);
});

test("every action is an MCP tool with schemas and annotations, and an OpenAPI operation", () => {
  const doc = openApiDocument() as { paths: Record<string, Record<string, { operationId: string }>> };
  const names = new Set<string>();
  for (const a of ACTIONS) {
    expect(names.has(a.name)).toBe(false);
    names.add(a.name);
    const tool = toolOf(a);
    expect(tool.inputSchema.type).toBe("object");
    expect(tool.outputSchema?.type).toBe("object");
    expect(hints(tool.annotations).readOnlyHint).toBe(a.annotations.readOnly);
    expect(tool.description?.length ?? 0).toBeGreaterThan(60);
    expect(doc.paths[a.http.path]?.[a.http.method.toLowerCase()]?.operationId).toBe(a.name);
  }
});

test("the agent guide's tool table names every tool, and every guide page it links exists", async () => {
  const { GUIDE } = await import("../../../src/resources/skill.ts");
  const skill = GUIDE.find((p) => p.path === "SKILL.md")!.text;
  for (const a of ACTIONS) expect(skill).toContain(`\`${a.name}\``);
  for (const link of skill.matchAll(/skill:\/\/selenium-flow\/([A-Za-z_/.]+\.md)/g)) {
    expect(GUIDE.map((p) => p.path)).toContain(link[1] as string);
  }
});

test("the troubleshooting page quotes the messages as the code says them", async () => {
  const { GUIDE } = await import("../../../src/resources/skill.ts");
  const { DIALOG_OPEN } = await import("../../../src/browser/failures.ts");
  const { BIDI_DOWN } = await import("../../../src/errors.ts");
  const { NO_FREE_SLOT } = await import("../../../src/grid/webdriver-errors.ts");
  const { SW_REASON } = await import("../../../src/site-data/spare-page.ts");
  const { NOT_KEPT } = await import("../../../src/site-data/restore.ts");
  const page = GUIDE.find((p) => p.path === "references/TROUBLESHOOTING.md")!.text.replace(/\s+/g, " ");
  for (const message of [
    DIALOG_OPEN,
    BIDI_DOWN,
    SW_REASON,
    NOT_KEPT,
    NO_FREE_SLOT.split(" …")[0]!.split(". ")[0]!,
  ])
    expect(page).toContain(message);
});

test("the retired FLOW_DATA_DIR lives on only in its refusal", async () => {
  const { readdirSync, readFileSync, statSync } = await import("node:fs");
  const { join } = await import("node:path");
  const root = join(import.meta.dir, "..", "..", "..");
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : [path];
    });
  const found: string[] = [];
  for (const path of [
    ...["src", "static", "docs", "scripts"].flatMap((d) => files(join(root, d))),
    join(root, "README.md"),
  ]) {
    readFileSync(path, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (/FLOW_DATA_DIR|flow\.data_dir|flow-data-dir|flow_data_dir/i.test(line))
          found.push(`${path.slice(root.length + 1)}:${i + 1}`);
      });
  }
  // The refusal's message and its check, and the settings page's line that says it is refused.
  expect(found.map((f) => f.split(":")[0]).sort()).toEqual([
    "docs/configuration.md",
    "src/config/load.ts",
    "src/config/load.ts",
  ]);
});
