// A module with a top-level await makes the start of every module that imports it asynchronous.
// In the compiled binary (bytecode) such a start, reached through the registry, stopped the boot
// silently with exit 0 before anything was served (found by deploy.test.ts). The bundle the binary
// is made from must start every module synchronously.
import { expect, test } from "bun:test";
import { resolve } from "node:path";

test("no module of the server starts asynchronously (no top-level await anywhere it imports)", async () => {
  const built = await Bun.build({
    entrypoints: [resolve(import.meta.dir, "../../../src/main.ts")],
    target: "bun",
    format: "esm",
  });
  expect(built.success).toBe(true);
  const main = built.outputs.find((o) => o.kind === "entry-point");
  if (!main) throw new Error("the bundle has no entry point");
  const code = await main.text();
  // Bun's bundler wraps a module whose start awaits as `__esm(async () => …)`.
  const asyncStarts = [...code.matchAll(/var (init_\w+) = __esm\(async/g)].map((m) => m[1]);
  expect(asyncStarts).toEqual([]);
  expect(code).toContain("var init_registry");
}, 60_000);
