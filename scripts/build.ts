// `bun run build`: compiles src/main.ts into one executable, dist/selenium-flow.
import { readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { BunPlugin } from "bun";

const root = resolve(import.meta.dir, "..");

// selenium-webdriver's lib/http.js loads its atoms with `require('./atoms/' + module)`, which a
// compiled binary cannot resolve ("Failed to import atoms module get-attribute.js"). Rewrite that
// one call into static requires so the bundler embeds every atom.
const DYNAMIC_ATOM = "require('./atoms/' + module)";

const staticAtoms: BunPlugin = {
  name: "selenium-webdriver-static-atoms",
  setup(build) {
    build.onLoad({ filter: /[\\/]selenium-webdriver[\\/]lib[\\/]http\.js$/ }, async ({ path }) => {
      const source = await Bun.file(path).text();
      if (!source.includes(DYNAMIC_ATOM)) {
        throw new Error(`selenium-webdriver changed how ${path} loads its atoms: update scripts/build.ts`);
      }
      const atoms = readdirSync(join(dirname(path), "atoms")).filter((f) => f.endsWith(".js"));
      const table = atoms.map(
        (f) => `${JSON.stringify(f)}: () => require(${JSON.stringify(`./atoms/${f}`)})`,
      );
      const lookup = `({ ${table.join(", ")} })[module]()`;
      return { contents: source.replace(DYNAMIC_ATOM, lookup), loader: "js" };
    });
  },
};

/** Compiles `entry` into the standalone executable `outfile`. */
export async function buildBinary({ entry, outfile }: { entry: string; outfile: string }): Promise<void> {
  const result = await Bun.build({
    entrypoints: [resolve(root, entry)],
    compile: { outfile: resolve(root, outfile) },
    target: "bun",
    // Bytecode (which needs ESM) cuts the start-up to the first HTTP 200 by more than half.
    format: "esm",
    bytecode: true,
    // Never full minification: renamed identifiers break Elysia's hooks.
    minify: { whitespace: true, syntax: true, identifiers: false },
    plugins: [staticAtoms],
  });
  if (!result.success) {
    throw new Error(`the build failed:\n${result.logs.map((l) => String(l)).join("\n")}`);
  }
}

if (import.meta.main) {
  const outfile = "dist/selenium-flow";
  await buildBinary({ entry: "src/main.ts", outfile });
  console.error(`built ${outfile}`);
}
