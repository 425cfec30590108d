// `bun run bench`: every benchmark in bench/, one after another (or the ones named: `bun run bench platform`).
import { readdirSync } from "node:fs";
import { join } from "node:path";

const skip = new Set(["run.ts", "report.ts", "server.ts"]);
const wanted = process.argv.slice(2);
const files = readdirSync(import.meta.dir)
  .filter((f) => f.endsWith(".ts") && !skip.has(f))
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace(/\.ts$/, "")))
  .sort();
for (const file of files) {
  const mod = (await import(join(import.meta.dir, file))) as { main?: () => Promise<void> };
  if (typeof mod.main !== "function") continue;
  console.log(`\n# bench/${file}`);
  await mod.main();
}
process.exit(0);
