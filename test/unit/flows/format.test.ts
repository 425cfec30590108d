// The flow format: what is refused (with its step and line), parameters and their substitution.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: flows spell their placeholders ${name}
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { z } from "zod";
import { defineAction } from "../../../src/actions/define.ts";
import { PageResult, webUrl } from "../../../src/actions/fields.ts";
import { AppError } from "../../../src/errors.ts";
import { bindFlow, REF_IN_FLOW } from "../../../src/flows/bind.ts";
import { parseFlow } from "../../../src/flows/format.ts";
import { StepTools } from "../../../src/flows/tools.ts";
import { ACTIONS } from "../../../src/registry.ts";

const page = async () => ({ url: "", title: "" });
const go = defineAction({
  name: "go",
  http: { method: "POST", path: "/go" },
  title: "Go",
  description: "",
  input: z.strictObject({ url: webUrl(), wait: z.number().optional() }),
  output: PageResult,
  annotations: { readOnly: false, destructive: false, idempotent: false },
  browser: "page",
  handler: page,
});
const type = defineAction({
  name: "type",
  http: { method: "POST", path: "/type" },
  title: "Type",
  description: "",
  input: z.strictObject({
    selector: z.strictObject({ css: z.string() }),
    text: z.string(),
    times: z.number().int().optional(),
  }),
  output: PageResult,
  annotations: { readOnly: false, destructive: true, idempotent: false },
  browser: "page",
  handler: page,
});
const runFlow = defineAction({ ...go, name: "run_flow" });
const tools = new StepTools(() => [go, type, runFlow]);

function refusal(text: string, params?: Record<string, string | number | boolean>): string {
  try {
    const parsed = parseFlow(text, tools);
    if (params) bindFlow(parsed, params, tools);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).status).toBe(400);
    return (err as AppError).message;
  }
  throw new Error("the flow was accepted");
}

const GOOD = `description: Sign in
params:
  base: https://app.example.test
  user: null
  times: {default: 2, description: How often}
steps:
  - tool: go
    args:
      url: \${base}/login
  - tool: type
    args:
      selector: {css: "#user"}
      text: "Hello \${user}, $\${literal}"
      times: \${times}
    return: true
onError: continue
timeout: 30
`;

describe("a good flow", () => {
  test("reads every part, with the defaults", () => {
    const { flow } = parseFlow(GOOD, tools);
    expect(flow.description).toBe("Sign in");
    expect(flow.params).toEqual({
      base: { default: "https://app.example.test" },
      user: {},
      times: { default: 2, description: "How often" },
    });
    expect(flow.steps.map((s) => [s.tool, s.return])).toEqual([
      ["go", false],
      ["type", true],
    ]);
    expect(flow.onError).toBe("continue");
    expect(flow.timeout).toBe(30);
    const { flow: bare } = parseFlow(
      "steps:\n  - tool: go\n    args: {url: 'https://a.example.test/'}\n",
      tools,
    );
    expect(bare.onError).toBe("stop");
    expect(bare.timeout).toBe(300);
    expect(bare.params).toEqual({});
  });

  test("a run fills every placeholder, deep, and a lone placeholder keeps its type", () => {
    const parsed = parseFlow(GOOD, tools);
    const steps = bindFlow(parsed, { user: "ada", times: 3 }, tools);
    expect(steps[0]!.input).toEqual({ url: "https://app.example.test/login" });
    expect(steps[1]!.input).toEqual({ selector: { css: "#user" }, text: "Hello ada, ${literal}", times: 3 });
    expect(steps.map((s) => [s.n, s.tool, s.line])).toEqual([
      [1, "go", 7],
      [2, "type", 10],
    ]);
    const defaults = bindFlow(parsed, { user: "bob" }, tools);
    expect(defaults[1]!.input.times).toBe(2);
  });

  test("JSON is a flow too (YAML reads it)", () => {
    const { flow } = parseFlow(
      JSON.stringify({ steps: [{ tool: "go", args: { url: "https://a.example.test/" } }] }),
      tools,
    );
    expect(flow.steps).toHaveLength(1);
  });
});

describe("every kind of bad flow is a 400 naming the step and the line", () => {
  test("invalid YAML names its line and column", () => {
    expect(refusal("steps:\n  - tool: go\n    args: {url: [\n")).toMatch(
      /^invalid YAML at line \d+, column \d+: /,
    );
    expect(refusal("steps: []\nsteps: []\n")).toBe(
      "invalid YAML at line 2, column 1: Map keys must be unique",
    );
  });

  test("not a mapping, no steps, an unknown top-level key", () => {
    expect(refusal("- a\n- b\n")).toContain("a flow is a YAML mapping");
    expect(refusal("")).toContain("a flow is a YAML mapping");
    expect(refusal("description: x\n")).toBe('line 1: missing field "steps": it is required');
    expect(refusal("steps: []\n")).toContain("line 1: ");
    expect(refusal("steps:\n  - tool: go\n    args: {url: 'https://a.example.test/'}\nonerror: stop\n")).toBe(
      'line 4: unknown field "onerror": remove it (it takes description, params, steps, onError, timeout)',
    );
    expect(
      refusal("steps:\n  - tool: go\n    args: {url: 'https://a.example.test/'}\nonError: later\n"),
    ).toBe('line 4: field "onError" must be one of "stop", "continue"');
  });

  test("an unknown tool, and a flow tool as a step", () => {
    const text = "steps:\n  - tool: go\n    args: {url: 'https://a.example.test/'}\n  - tool: clik\n";
    expect(refusal(text)).toBe(
      'step 2 (clik) at line 4: unknown tool "clik": a step\'s tool is one of go, type',
    );
    expect(refusal("steps:\n  - tool: run_flow\n    args: {url: 'https://a.example.test/'}\n")).toBe(
      "step 1 (run_flow) at line 2: run_flow cannot be a step: a flow does not run, save or delete flows",
    );
  });

  test("an unknown argument points at its own line; a missing one at the step's args", () => {
    const unknown =
      "steps:\n  - tool: type\n    args:\n      selector: {css: a}\n      text: hi\n      colour: red\n";
    expect(refusal(unknown)).toBe(
      'step 1 (type) at line 6: unknown field "colour": remove it (it takes selector, text, times)',
    );
    const nested = "steps:\n  - tool: type\n    args:\n      selector:\n        xpath: a\n      text: hi\n";
    expect(refusal(nested)).toBe('step 1 (type) at line 4: missing field "selector.css": it is required');
    const missing =
      "steps:\n  - tool: go\n    args: {url: 'https://a.example.test/'}\n  - tool: type\n    args:\n      text: hi\n";
    expect(refusal(missing)).toBe('step 2 (type) at line 5: missing field "selector": it is required');
    expect(refusal("steps:\n  - tool: go\n")).toBe(
      'step 1 (go) at line 2: missing field "url": it is required',
    );
    const wrongType =
      "steps:\n  - tool: go\n    args:\n      url: https://a.example.test/\n      wait: soon\n";
    expect(refusal(wrongType)).toBe('step 1 (go) at line 5: field "wait" must be a number');
    expect(refusal("steps:\n  - tool: go\n    arg: {}\n")).toBe(
      'step 1 (go) at line 3: unknown field "steps.0.arg": remove it (it takes tool, args, return)',
    );
  });

  test("an undefined parameter, however deep", () => {
    const text =
      "params: {user: x}\nsteps:\n  - tool: type\n    args:\n      selector: {css: '#${who}'}\n      text: ${user}\n";
    expect(refusal(text)).toBe(
      "step 1 (type) at line 5: ${who} is not a parameter of this flow: declare it under params (it has user)",
    );
    expect(refusal("steps:\n  - tool: go\n    args: {url: '${base}/x'}\n")).toBe(
      "step 1 (go) at line 3: ${base} is not a parameter of this flow: declare it under params",
    );
  });

  test("a bad parameter declaration", () => {
    expect(
      refusal("params:\n  my-name: 1\nsteps:\n  - tool: go\n    args: {url: 'https://a.example.test/'}\n"),
    ).toBe(
      'line 2: parameter name "my-name" is not allowed: use letters, digits and _, not starting with a digit',
    );
    expect(
      refusal("params:\n  a: [1]\nsteps:\n  - tool: go\n    args: {url: 'https://a.example.test/'}\n"),
    ).toContain('line 2: parameter "a" takes a default');
  });
});

describe("placeholders are checked when the run gives their value", () => {
  const text =
    "params:\n  site: null\n  wait: null\nsteps:\n  - tool: go\n    args:\n      url: ${site}\n      wait: ${wait}\n";

  test("a field holding a parameter without a default passes the save-time check", () => {
    expect(parseFlow(text, tools).flow.steps).toHaveLength(1);
  });

  test("the run checks the value it gives, naming the step and the line", () => {
    const parsed = parseFlow(text, tools);
    expect(() => bindFlow(parsed, { site: "not a url", wait: 1 }, tools)).toThrow(
      'step 1 (go) at line 7: field "url" must be an absolute URL such as https://app.example.test/',
    );
    expect(() => bindFlow(parsed, { site: "https://a.example.test/", wait: "later" }, tools)).toThrow(
      'step 1 (go) at line 8: field "wait" must be a number',
    );
    expect(bindFlow(parsed, { site: "https://a.example.test/", wait: 2 }, tools)[0]!.input).toEqual({
      url: "https://a.example.test/",
      wait: 2,
    });
  });

  test("a parameter the flow does not take, or one without a default left out", () => {
    const parsed = parseFlow(text, tools);
    expect(() => bindFlow(parsed, { site: "https://a.example.test/", wait: 1, extra: 1 }, tools)).toThrow(
      'unknown parameter "extra": this flow takes site, wait',
    );
    expect(() => bindFlow(parsed, { wait: 1 }, tools)).toThrow(
      'parameter "site" has no default: pass it in params',
    );
  });

  test("a field without a placeholder is still checked when saved", () => {
    const mixed =
      "params: {wait: null}\nsteps:\n  - tool: go\n    args:\n      url: nowhere\n      wait: ${wait}\n";
    expect(refusal(mixed)).toBe(
      'step 1 (go) at line 5: field "url" must be an absolute URL such as https://app.example.test/',
    );
  });
});

test("docs/flows/sign-in.yaml is a valid flow for the action table", () => {
  const text = readFileSync(new URL("../../../docs/flows/sign-in.yaml", import.meta.url), "utf8");
  const table = new StepTools(() => ACTIONS);
  const parsed = parseFlow(text, table);
  const steps = bindFlow(parsed, { user: "ada@example.test" }, table);
  expect(steps.map((s) => s.tool)).toEqual(["navigate", "write", "write", "assert", "save_site_data"]);
  expect(steps[0]!.input.url).toBe("https://app.example.test/login");
  expect(steps[2]!.input.secret).toEqual({ name: "app-login", key: "password" });
});

test("a flow cannot hold a ref: refused at its line, whichever selector field holds it", () => {
  const table = new StepTools(() => ACTIONS);
  const refused = (text: string) => {
    try {
      parseFlow(text, table);
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error("the flow was accepted");
  };
  const why = REF_IN_FLOW;
  expect(why).toStartWith("a flow cannot hold a ref: ");
  expect(
    refused(
      "steps:\n  - tool: interact\n    args:\n      action: click\n      selector:\n        ref: e12\n",
    ),
  ).toBe(`step 1 (interact) at line 6: ${why}`);
  expect(
    refused(
      "steps:\n  - tool: interact\n    args:\n      action: drag\n      selector: {css: '#a'}\n      target: {ref: e3}\n",
    ),
  ).toBe(`step 1 (interact) at line 6: ${why}`);
  expect(refused("steps:\n  - tool: switch\n    args: {frame: {ref: e9}}\n")).toBe(
    `step 1 (switch) at line 3: ${why}`,
  );
  // The same steps with a role and name are a flow.
  parseFlow(
    "steps:\n  - tool: interact\n    args:\n      action: click\n      selector: {role: button, name: Sign in}\n",
    table,
  );
});
