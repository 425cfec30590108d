// Checked flows are cached by file identity (path, modification time, size): a listing does not
// parse every file again, and a file changed on disk is read afresh.
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfig } from "../../../src/config/schema.ts";
import { Flows } from "../../../src/flows/service.ts";
import { ACTIONS } from "../../../src/registry.ts";

const dir = mkdtempSync(join(tmpdir(), "sf-flow-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("a listing parses a flow once while its file is unchanged, and again once it changes", () => {
  const config = defaultConfig();
  config.data.dir = dir;
  let looks = 0;
  // The step table is consulted once per step parsed: it counts the parses.
  const flows = new Flows(config, () => {
    looks++;
    return ACTIONS;
  });
  const folder = join(dir, "sessions", "w", "flows");
  mkdirSync(folder, { recursive: true });
  const path = join(folder, "a.yaml");
  writeFileSync(path, "description: one\nsteps:\n  - tool: end_browser\n");
  writeFileSync(join(folder, "broken.yaml"), "steps:\n  - tool: no_such_tool\n");

  const first = flows.summaries("w");
  expect(first.map((f) => [f.name, f.description, f.problem ?? null])).toEqual([
    ["a", "one", null],
    ["broken", "", expect.stringContaining("unknown tool")],
  ]);
  const parsed = looks;
  expect(parsed).toBeGreaterThan(0);
  for (let i = 0; i < 5; i++) flows.summaries("w");
  expect(flows.load("w", "a").parsed.flow.description).toBe("one");
  expect(looks).toBe(parsed);

  // Same size, another time: read and parsed again.
  writeFileSync(path, "description: two\nsteps:\n  - tool: end_browser\n");
  utimesSync(path, new Date(), new Date(Date.now() + 5000));
  expect(flows.summaries("w").find((f) => f.name === "a")?.description).toBe("two");
  expect(looks).toBeGreaterThan(parsed);
});
