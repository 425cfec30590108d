// A gesture waits for no dialog: one its handler opens at once is in its result; one that opens
// after it answered (a fetch's answer, a timer) is reported by the next call, on the real Grid.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "gesture-dialog";
let server: TestServer;
// The page's /held fetch answers only when the test lets it: its dialog opens after the call answered.
let release = () => {};
let asked = Promise.withResolvers<void>();
const site = serveFixture({
  "/": () =>
    html(`<title>Later</title>
<button id="now" onclick="alert('at once')">now</button>
<button id="held" onclick="fetch('/held').then(() => confirm('saved?'))">held</button>
<input id="box" onkeydown="if (event.key === 'Enter') fetch('/held').then(() => confirm('sent?'))">
<button id="plain" onclick="this.textContent = 'pressed'">plain</button>`),
  "/held": async () => {
    const go = Promise.withResolvers<void>();
    release = go.resolve;
    asked.resolve();
    await go.promise;
    return new Response("ok");
  },
});

const call = (path: string, body?: unknown) => server.call("POST", path, body, W);

beforeAll(async () => {
  server = await startServer({ dataDir: false });
  expect((await call("/browser", { url: site.url("/") })).status).toBe(200);
}, 180_000);

afterAll(async () => {
  release();
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

/** Lets the page's held fetch answer, then waits (reading, not answering) until its dialog is open. */
async function opens(message: string): Promise<void> {
  await asked.promise;
  asked = Promise.withResolvers<void>();
  release();
  const read = await call("/browser/dialog", { action: "read", wait: 10 });
  expect(read.body.message).toBe(message);
}

describe("dialogs and gestures", () => {
  test("a click whose handler alerts at once reports the alert in its own result", async () => {
    const res = await call("/browser/interact/click", { selector: { css: "#now" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ dialog: "at once", url: "", title: "" });
    expect((await call("/browser/dialog", { action: "accept" })).body.title).toBe("Later");
  }, 60_000);

  test("a click whose fetch confirms after it answered: the click is plain, the next call reports the confirm", async () => {
    const res = await call("/browser/interact/click", { selector: { css: "#held" } });
    expect(res.status).toBe(200);
    expect(res.body.dialog).toBeUndefined();
    expect(res.body).toMatchObject({ url: site.url("/"), title: "Later" });
    await opens("saved?");
    const next = await call("/browser/interact/click", { selector: { css: "#plain" } });
    expect(next.status).toBe(400);
    expect(next.body.error).toContain("saved?");
    expect((await call("/browser/dialog", { action: "dismiss" })).body.title).toBe("Later");
    // Answered, the page takes gestures again.
    const after = await call("/browser/interact/click", { selector: { css: "#plain" } });
    expect(after.status).toBe(200);
    expect(after.body.dialog).toBeUndefined();
  }, 60_000);

  test("Enter whose fetch then confirms: the press answers, a write after it is refused naming the confirm", async () => {
    const res = await call("/browser/interact/press", { selector: { css: "#box" }, keys: "Enter" });
    expect(res.status).toBe(200);
    expect(res.body.dialog).toBeUndefined();
    await opens("sent?");
    const next = await call("/browser/write", { selector: { css: "#box" }, text: "more" });
    expect(next.status).toBe(400);
    expect(next.body.error).toContain("sent?");
    expect((await call("/browser/dialog", { action: "accept" })).status).toBe(200);
  }, 60_000);

  test("a plain click on a page that opens nothing: url and title, no dialog", async () => {
    const res = await call("/browser/interact/click", { selector: { css: "#plain" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url: site.url("/"), title: "Later" });
  }, 60_000);
});
