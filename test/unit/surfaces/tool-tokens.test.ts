// What an agent pays for the tools: the real tools/list of an in-process server, counted with the
// o200k tokenizer against the budgets (issue 13), and proof that the short form an agent is sent
// still says every field, type, enum and requirement that the full form (OpenAPI, docs) says.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { ACTIONS } from "../../../src/registry.ts";
import { jsonSchema } from "../../../src/surfaces/json-schema.ts";
import { openApiDocument } from "../../../src/surfaces/openapi.ts";
import { mcpClient } from "../../support/mcp.ts";
import { startServer, type TestServer } from "../../support/server.ts";

/** What a model is shown of the tools: name, description and input schema (issue 19: at most Playwright MCP 0.0.83's default set, 3,747). */
const VISIBLE_BUDGET = 3_747;
/** The whole tools/list result, output schemas and annotations included (issue 19: 6,500). */
const WHOLE_BUDGET = 6_500;

type Schema = Record<string, any>;
let server: TestServer;
let listed: { tools: Schema[] };

beforeAll(async () => {
  server = await startServer({ dataDir: false });
  const mcp = await mcpClient(server, "tokens");
  listed = (await mcp.request("tools/list")).data.result;
});
afterAll(async () => {
  await server.close();
});

const tool = (name: string) => listed.tools.find((t) => t.name === name)!;

/** Every subschema, with its path. */
function* nodes(s: Schema, path = "$"): Generator<[string, Schema]> {
  yield [path, s];
  for (const [k, v] of Object.entries(s.properties ?? {})) yield* nodes(v as Schema, `${path}.${k}`);
  if (s.items) yield* nodes(s.items, `${path}[]`);
  if (s.additionalProperties && typeof s.additionalProperties === "object")
    yield* nodes(s.additionalProperties, `${path}{}`);
  for (const [i, b] of (s.anyOf ?? []).entries()) yield* nodes(b, `${path}|${i}`);
}

/** The types a node allows, whether said as type, a list of types, or anyOf of bare types. */
function types(s: Schema): string[] {
  if (Array.isArray(s.type)) return [...s.type].sort();
  if (s.type) return [s.type];
  if (s.anyOf) return [...new Set((s.anyOf as Schema[]).flatMap(types))].sort();
  return [];
}

describe("the token budget of tools/list", () => {
  test(`what a model sees of the tools is at most ${VISIBLE_BUDGET} o200k tokens; the whole list at most ${WHOLE_BUDGET}`, () => {
    expect(listed.tools.map((t) => t.name)).toEqual(ACTIONS.map((a) => a.name));
    const visible = listed.tools.map(({ name, description, inputSchema }) => ({
      name,
      description,
      inputSchema,
    }));
    const seen = countTokens(JSON.stringify(visible));
    const whole = countTokens(JSON.stringify(listed));
    if (seen > VISIBLE_BUDGET || whole > WHOLE_BUDGET) {
      // Say which tools cost the most, so whoever went over knows where to look.
      const costs = listed.tools
        .map((t) => `${t.name} ${countTokens(JSON.stringify(t))}`)
        .sort((a, b) => Number(b.split(" ")[1]) - Number(a.split(" ")[1]));
      console.error(`model-visible ${seen}, whole ${whole}; per tool: ${costs.join(", ")}`);
    }
    expect(seen).toBeLessThanOrEqual(VISIBLE_BUDGET);
    expect(whole).toBeLessThanOrEqual(WHOLE_BUDGET);
    // Counted on the real thing: a tokenizer that saw nothing would pass any budget.
    expect(seen).toBeGreaterThan(1_000);
    expect(whole).toBeGreaterThan(seen);
  });

  test("no part says nothing: no draft marker, no safe-integer bounds, no additionalProperties: false, no docs-only keys", () => {
    const text = JSON.stringify(listed);
    expect(text).not.toContain("$schema");
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
    expect(text).not.toContain('"additionalProperties":false');
    expect(text).not.toContain('"docs"');
    expect(text).not.toContain('"shared"');
    for (const t of listed.tools) {
      expect(t.annotations.title).toBeUndefined();
      expect(typeof t.title).toBe("string");
      for (const [path, n] of nodes(t.outputSchema))
        expect([t.name, path, n.description]).toEqual([t.name, path, undefined]);
    }
  });

  test("site_data, page and a nested file entry are one small object each, not the whole shape", () => {
    for (const t of listed.tools) {
      for (const field of ["site_data", "page"]) {
        const s = t.outputSchema.properties[field];
        if (s) expect(s).toEqual({ type: "object" });
      }
    }
    expect(tool("navigate").outputSchema.properties.site_data).toEqual({ type: "object" });
    expect(tool("screenshot").outputSchema.properties.file).toEqual({ type: "object" });
    // Where a file entry is the whole result, it is declared in full.
    expect(Object.keys(tool("keep_file").outputSchema.properties)).toContain("keep_with");
    // A selector is one line, and says its kinds where no field of its own describes it.
    expect(tool("extract").inputSchema.properties.selector).toEqual({
      type: "object",
      description: expect.stringContaining(
        '{"ref": "e12"} from read_page, or one of css, xpath, text (+nth, within), label, role',
      ),
    });
    expect(tool("interact").inputSchema.properties.target).toEqual({
      type: "object",
      description: "drag, select_text: where it ends.",
    });
    expect(tool("switch").inputSchema.properties.frame.type).toEqual(["object", "null"]);
  });

  test("OpenAPI and the docs keep the full shapes and the readers' prose", () => {
    const doc = openApiDocument() as any;
    const nav = doc.paths["/browser/navigate"].post;
    const out = nav.responses["200"].content["application/json"].schema;
    expect(Object.keys(out.properties.site_data.properties)).toEqual([
      "restored",
      "forgotten",
      "skipped",
      "uri",
    ]);
    expect(Object.keys(out.properties.page.properties)).toEqual([
      "console_errors",
      "failed_requests",
      "omitted",
    ]);
    expect(out.properties.page.description).toContain("capture=true");
    expect(out.additionalProperties).toBe(false);
    const input = doc.paths["/browser/interact/{action}"].post.requestBody.content["application/json"].schema;
    expect(Object.keys(input.properties.selector.properties)).toEqual([
      "ref",
      "css",
      "xpath",
      "text",
      "exact",
      "nth",
      "within",
      "label",
      "role",
      "name",
    ]);
    expect(input.properties.selector.properties.css.maxLength).toBe(2000);
    expect(input.properties.keys.description).toContain('"Shift+Tab"');
    expect(doc.paths["/browser"].post.description).toContain("record=true films this browser's whole life");
    expect(JSON.stringify(doc)).not.toContain(String(Number.MAX_SAFE_INTEGER));
  });
});

describe("the tool form says what the full form says", () => {
  test("every input field, its type, enum, default, bounds and whether it is required", () => {
    for (const a of ACTIONS) {
      const full = jsonSchema(a.input, "input");
      const short = tool(a.name).inputSchema;
      expect([a.name, Object.keys(short.properties ?? {})]).toEqual([
        a.name,
        Object.keys(full.properties ?? {}),
      ]);
      expect([a.name, short.required]).toEqual([a.name, full.required]);
      for (const [name, f] of Object.entries(full.properties ?? {}) as [string, Schema][]) {
        const s = short.properties[name];
        const at = `${a.name}.${name}`;
        expect([at, types(s)]).toEqual([at, types(f)]);
        for (const key of ["enum", "default", "minimum", "maximum", "exclusiveMinimum", "pattern", "const"])
          expect([at, key, s[key]]).toEqual([at, key, f[key]]);
        if (!f.description) expect([at, s.description]).toEqual([at, undefined]);
      }
    }
  });

  test("every output field and requirement, down to the shared parts", () => {
    for (const a of ACTIONS) {
      const full = new Map(nodes(jsonSchema(a.output, "output")));
      const short = new Map(nodes(tool(a.name).outputSchema));
      for (const [path, s] of short) {
        const f = full.get(path)!;
        expect([a.name, path, f === undefined]).toEqual([a.name, path, false]);
        expect([a.name, path, types(s)]).toEqual([a.name, path, types(f)]);
        // A part left out of the tool form is only ever a shared shape's inside.
        if (f.properties && !s.properties) {
          expect([a.name, path, s]).toEqual([a.name, path, { type: "object" }]);
          continue;
        }
        expect([a.name, path, s.required, s.enum]).toEqual([a.name, path, f.required, f.enum]);
        expect([a.name, path, Object.keys(s.properties ?? {})]).toEqual([
          a.name,
          path,
          Object.keys(f.properties ?? {}),
        ]);
      }
    }
  });
});
