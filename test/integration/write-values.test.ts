// write into inputs keys cannot fill: date, time and color take their value whole, with input and
// change events as a person's choice would fire; a value in the wrong form is a 400 saying the form.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Fixture, html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "write-values";
let server: TestServer;
let site: Fixture;

const call = (path: string, body: unknown = {}) => server.call("POST", path, body, W);

beforeAll(async () => {
  site = serveFixture({
    "/form": () =>
      html(`<title>Form</title><input id=d type=date><input id=t type=time><input id=c type=color>
<script>for (const el of document.querySelectorAll("input")) el.addEventListener("change", () => { el.dataset.changed = el.value; });</script>`),
  });
  server = await startServer({ dataDir: false });
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

test("date, time and color inputs are set whole and fire change", async () => {
  expect((await call("/browser/navigate", { url: site.url("/form") })).status).toBe(200);
  for (const [css, text] of [
    ["#d", "2024-01-31"],
    ["#t", "13:45"],
    ["#c", "#ff0000"],
  ] as const) {
    const w = await call("/browser/write", { selector: { css }, text });
    expect(w.status).toBe(200);
  }
  const got = await call("/browser/script", {
    script: `[...document.querySelectorAll("input")].map((e) => e.value + "|" + e.dataset.changed)`,
  });
  expect(got.body.result).toEqual(["2024-01-31|2024-01-31", "13:45|13:45", "#ff0000|#ff0000"]);
  const bad = await call("/browser/write", { selector: { css: "#d" }, text: "31/01/2024" });
  expect(bad.status).toBe(400);
  expect(bad.body.error).toContain("2024-01-31");
});
