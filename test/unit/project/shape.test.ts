// The shape of the tree (docs/architecture.md), as `npm run check` holds it, so CI holds it too: no
// import cycle, no surface imported below the surfaces, no re-export outside an index, no unused
// export, no source file over 400 lines, no duplicated block of 6 lines.
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

test("the tree keeps its shape: no cycle, surfaces on top, no re-export, no unused export, files of 400 lines or fewer, no clone", () => {
  const run = spawnSync("node", [join(import.meta.dir, "../../../scripts/check-shape.mjs")], {
    encoding: "utf8",
  });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  expect(run.stdout).toContain("shape: no cycle");
}, 120_000);
