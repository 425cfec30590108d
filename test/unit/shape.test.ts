// The shape of the tree (docs/architecture.md), as `npm run check` holds it, so CI holds it too: no
// import cycle, no surface imported below the surfaces, no source file of 350 lines or more, no
// duplicated block of 6 lines.
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

test("the tree keeps its shape: no cycle, surfaces on top, files under 350 lines, no clone", () => {
  const run = spawnSync("node", [join(import.meta.dir, "../../scripts/check-shape.mjs")], {
    encoding: "utf8",
  });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  expect(run.stdout).toContain("shape: no cycle");
}, 120_000);
