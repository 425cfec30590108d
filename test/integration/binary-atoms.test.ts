// The compiled binary drives a real Grid browser with the selenium-webdriver commands that load
// atoms (getAttribute, isDisplayed): the build plugin must have embedded them.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildBinary } from "../../scripts/build.ts";
import { Grid } from "../../src/grid/webdriver.ts";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";

const site = serveFixture({
  "/": () =>
    html(
      `<title>atoms</title><p id="shown" title="visible one">here</p><p id="hidden" style="display:none">gone</p>`,
    ),
});
const grid = new Grid(testGridUrl);
const dir = mkdtempSync(join(tmpdir(), "sf-binary-"));
let id = "";

beforeAll(async () => {
  id = (await grid.open({ browser: "chrome" })).id;
});

afterAll(async () => {
  if (id) await grid.end(id);
  site.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("a compiled binary reattaches and runs atom-based commands", async () => {
  const outfile = join(dir, "atoms-entry");
  await buildBinary({ entry: "test/support/atoms-entry.ts", outfile });
  await grid.attach(id).get(site.url("/"));
  // Run it away from the repo: nothing beside it to load at run time.
  const run = Bun.spawn([outfile, testGridUrl, id], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(run.stdout).text(),
    new Response(run.stderr).text(),
    run.exited,
  ]);
  expect(err.trim()).toBe("");
  expect(code).toBe(0);
  expect(JSON.parse(out)).toEqual({ title: "visible one", shown: true, hidden: false, contexts: 1 });
}, 120_000);
