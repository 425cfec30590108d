// Scratch entry compiled by test/integration/binary-atoms.test.ts: inside a compiled binary it
// reattaches to a Grid browser and runs the commands that need selenium-webdriver's atoms.
// Usage: <binary> <grid url> <browser id>; prints one JSON line.
import { messageOf } from "../../src/errors.ts";
import { Grid } from "../../src/grid/webdriver.ts";

const [gridUrl, id] = process.argv.slice(2);
if (!gridUrl || !id) {
  console.error("usage: atoms-entry <grid url> <browser id>");
  process.exit(2);
}
try {
  const grid = new Grid(gridUrl);
  const driver = grid.attach(id);
  const shown = await driver.findElement({ css: "#shown" });
  const hidden = await driver.findElement({ css: "#hidden" });
  const bidi = await grid.bidi(id);
  const tree = await bidi.send("browsingContext.getTree", { maxDepth: 0 });
  bidi.close();
  console.log(
    JSON.stringify({
      title: await shown.getAttribute("title"),
      shown: await shown.isDisplayed(),
      hidden: await hidden.isDisplayed(),
      contexts: tree.contexts.length,
    }),
  );
} catch (err) {
  console.error(messageOf(err));
  process.exit(1);
}
