// A dialog a gesture opens a moment after it answers (a click handler's timer, a key's fetch)
// comes back in that gesture's result on the real Grid; one opened well after it does not.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DIALOG_SETTLE_MS } from "../../src/grid/page-dialogs.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "gesture-dialog";
let server: TestServer;
const site = serveFixture({
  "/": () =>
    html(`<title>Later</title>
<button id="soon" onclick="setTimeout(() => alert('soon after'), 120)">soon</button>
<button id="late" onclick="setTimeout(() => confirm('much later'), ${DIALOG_SETTLE_MS + 1500})">late</button>
<input id="box" onkeydown="if (event.key === 'Enter') fetch('/ok').then(() => confirm('saved?'))">`),
  "/ok": async () => {
    await Bun.sleep(100);
    return new Response("ok");
  },
});

const call = (path: string, body?: unknown) => server.call("POST", path, body, W);

beforeAll(async () => {
  server = await startServer({ dataDir: false });
  expect((await call("/browser", { url: site.url("/") })).status).toBe(200);
}, 180_000);

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

describe("a dialog just after a gesture", () => {
  test("a click whose handler alerts on a timer reports the alert", async () => {
    const res = await call("/browser/interact/click", { selector: { css: "#soon" } });
    expect(res.status).toBe(200);
    expect(res.body.dialog).toBe("soon after");
    expect(res.body.url).toBe("");
    expect((await call("/browser/dialog", { action: "accept" })).status).toBe(200);
  }, 60_000);

  test("Enter whose fetch then confirms reports the confirm", async () => {
    const res = await call("/browser/interact/press", { selector: { css: "#box" }, keys: "Enter" });
    expect(res.status).toBe(200);
    expect(res.body.dialog).toBe("saved?");
    expect((await call("/browser/dialog", { action: "dismiss" })).status).toBe(200);
  }, 60_000);

  test("one opened well after the window is not the gesture's", async () => {
    const res = await call("/browser/interact/click", { selector: { css: "#late" } });
    expect(res.status).toBe(200);
    expect(res.body.dialog).toBeUndefined();
    expect(res.body.title).toBe("Later");
    const later = await call("/browser/dialog", { action: "accept", wait: 5 });
    expect(later.body.message).toBe("much later");
  }, 60_000);
});
