// Flows on the generated surfaces: the routes and tools, the run report's declared shape, the guide.
import { expect, test } from "bun:test";
import { ACTIONS } from "../../../src/registry.ts";
import { GUIDE } from "../../../src/resources/skill.ts";
import { toolOf } from "../../../src/surfaces/mcp-answers.ts";
import { openApiDocument } from "../../../src/surfaces/openapi.ts";
import { hints } from "../../support/mcp.ts";

const doc = openApiDocument() as any;
const schemaOf = (path: string, method: string) =>
  doc.paths[path][method].responses["200"].content["application/json"].schema;

test("each flow action is a route and a tool; the flows are resources", () => {
  expect(doc.paths["/flows/{name}/run"].post["x-mcp-tool"]).toBe("run_flow");
  expect(doc.paths["/flows/{name}"].put["x-mcp-tool"]).toBe("save_flow");
  expect(doc.paths["/flows/{name}"].delete["x-mcp-tool"]).toBe("delete_flow");
  expect(doc.paths["/flows/{name}"].get["x-mcp-resource"]).toBe("workspace://flows/{name}");
  expect(doc.paths["/flows"].get["x-mcp-resource"]).toBe("workspace://flows");
  const put = doc.paths["/flows/{name}"].put.requestBody.content;
  expect(Object.keys(put)).toEqual(["application/json", "application/yaml"]);
  expect(put["application/yaml"].schema.type).toBe("string");
  const run = toolOf(ACTIONS.find((a) => a.name === "run_flow")!);
  expect(hints(run.annotations)).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  expect(Object.keys((run.inputSchema as any).properties)).toEqual(["name", "params"]);
  const save = toolOf(ACTIONS.find((a) => a.name === "save_flow")!);
  expect(Object.keys((save.inputSchema as any).properties)).toEqual([
    "name",
    "yaml",
    "from_timeline",
    "description",
    "params",
    "steps",
    "onError",
    "timeout",
  ]);
});

test("a flow run declares the site_data it reports at run level, and no step carries one", () => {
  const run = schemaOf("/flows/{name}/run", "post");
  const navigate = schemaOf("/browser/navigate", "post");
  expect(run.properties.site_data).toEqual(navigate.properties.site_data);
  expect(run.properties.steps.items.properties.site_data).toBeUndefined();
  expect(Object.keys(run.properties.steps.items.properties)).toEqual([
    "n",
    "tool",
    "ok",
    "url",
    "result",
    "error",
    "ms",
  ]);
  expect(run.properties.status.enum).toEqual(["ok", "failed", "timeout"]);
  expect(run.required).toEqual(["status", "steps", "url", "title"]);
});

test("the flows guide is served as a skill:// page", () => {
  const page = GUIDE.find((p) => p.path === "references/FLOWS.md");
  expect(page?.text).toContain("tool: save_site_data");
  expect(page?.text).toContain("secret: { name: app-login, key: password }");
});
