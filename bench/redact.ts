// What one call's redactions cost on the request path: a bound write's three catalogue reads and
// five redactions (the landing url, the result, the timeline's arguments, url and title) with the
// secrets in a folder of 20 files, beside the same with the same secrets as settings (no folder).
// No browser: the redactor and the catalogue alone.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SecretEntry } from "../src/config/schema.ts";
import { SecretCatalogue } from "../src/secrets/catalogue.ts";
import { Redactor } from "../src/secrets/redactor.ts";
import { median, printTable, type Row } from "./report.ts";

const FILES = 20;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const CALLS = 2000;
const quiet = { warn: () => undefined };

const texts = [
  "https://shop.example.test/account?tab=orders&session=a1b2c3d4e5",
  JSON.stringify({ landed: "https://shop.example.test/account", title: "Your orders", focus: "#search" }),
  JSON.stringify({ selector: { label: "Password" }, secret: { name: "s7", key: "pw" }, submit: true }),
  "https://shop.example.test/account",
  "Your orders · Example Shop",
];

// Microseconds per call of `gets` catalogue reads and the five redactions.
function callCost(catalogue: SecretCatalogue, redactor: Redactor, gets: number): number {
  const t = performance.now();
  for (let i = 0; i < CALLS; i++) {
    for (let g = 0; g < gets; g++) catalogue.get("s7");
    for (const text of texts) redactor.redact(text);
  }
  return ((performance.now() - t) / CALLS) * 1000;
}

export async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "sf-bench-redact-"));
  const entries: Record<string, SecretEntry> = {};
  for (let i = 0; i < FILES; i++) {
    writeFileSync(
      join(dir, `s${i}.yaml`),
      `allowed_urls: [shop.example.test]\nkeys:\n  pw: {value: bench-value-${i}-xyz}\n`,
    );
    entries[`s${i}`] = {
      allowed_urls: ["shop.example.test"],
      keys: { pw: { value: `bench-value-${i}-xyz` } },
    };
  }
  try {
    const folder = new SecretCatalogue({ dirs: [dir], entries: {} }, quiet);
    const settings = new SecretCatalogue({ dirs: [], entries }, quiet);
    const a = new Redactor(folder);
    const b = new Redactor(settings);
    const rows: Row[] = [];
    for (const gets of [0, 3]) {
      const fromFolder: number[] = [];
      const fromSettings: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        fromFolder.push(callCost(folder, a, gets));
        fromSettings.push(callCost(settings, b, gets));
      }
      rows.push({
        what: `${gets ? `${gets} gets (a bound write) and ` : ""}5 redactions, ${FILES} secrets in a folder`,
        value: median(fromFolder),
        unit: "µs",
        ref: median(fromSettings),
        refName: "the same secrets as settings",
      });
    }
    printTable(`one call's catalogue reads and redactions (median of ${ROUNDS} runs of ${CALLS})`, rows);
    folder.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  await main();
  process.exit(0);
}
