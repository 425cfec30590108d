// A Bun macro: the page library (index.ts and what it imports) as one script, made when the server
// is bundled or transpiled, the way Playwright ships its injected script. Imported with
// `with { type: "macro" }`, so it never runs in the server itself.
import { join } from "node:path";

export function pageLibrary(): string {
  const entry = join(import.meta.dir, "index.ts");
  // Bun.build cannot run inside a macro (the bundler waits for it); its CLI can.
  const r = Bun.spawnSync(
    [
      process.execPath,
      "build",
      entry,
      "--format=iife",
      "--target=browser",
      "--minify-syntax",
      "--minify-whitespace",
    ],
    { env: { ...process.env, BUN_BE_BUN: "1" } },
  );
  if (r.exitCode !== 0) throw new Error(`the page library did not bundle: ${r.stderr.toString()}`);
  return r.stdout.toString();
}
