// write puts plain text in as one insert (beforeinput and input, as a paste does), on the real Grid:
// a controlled field sees its input events and keeps the value, clear replaces and false appends,
// a rich editor takes it; a one-character box that moves on (a code split over boxes) and text with
// a new line still take keys, each to the field that has the focus.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "write-insert";
let server: TestServer;
const site = serveFixture({
  "/": () =>
    html(`<title>Insert</title>
<script>
  window.seen = [];
  // A controlled field, as a framework keeps one: its state follows input events only.
  let state = "";
  function controlled(el) {
    el.addEventListener("beforeinput", (e) => seen.push("beforeinput:" + e.inputType));
    el.addEventListener("input", (e) => { state = el.value; seen.push("input:" + e.inputType); });
    el.addEventListener("keydown", (e) => seen.push("keydown:" + e.key));
  }
  window.stateOf = () => state;
</script>
<input id="name" aria-label="Name" value="old text">
<textarea id="notes" aria-label="Notes"></textarea>
<div id="rich" contenteditable="true" aria-label="Rich">before</div>
<div id="code">${[1, 2, 3, 4].map((i) => `<input id="d${i}" maxlength="1" aria-label="Digit ${i}" oninput="if (this.value) document.getElementById('d${i + 1}')?.focus()">`).join("")}</div>
<input id="zip" aria-label="ZIP" maxlength="5">
<input id="card" aria-label="Card" maxlength="16" oninput="this.value = this.value.split(' ').join('')">
<input id="loud" aria-label="Loud" oninput="alert('got ' + this.value)">
<input id="shy" aria-label="Shy" onfocus="document.getElementById('notes').focus()">
<script>controlled(document.getElementById("name"));</script>`),
});

const call = (path: string, body?: unknown) => server.call("POST", path, body, W);
const inPage = async (script: string) => (await call("/browser/script", { script })).body.result;

beforeAll(async () => {
  server = await startServer({ dataDir: false });
  expect((await call("/browser", { url: site.url("/") })).status).toBe(200);
}, 180_000);

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

test("a controlled field gets one insert over its old text: its state follows, no key per character", async () => {
  const res = await call("/browser/write", { selector: { label: "Name" }, text: "Ann Lee-Smith, 42 é" });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ url: site.url("/"), title: "Insert" });
  expect(await inPage("return [document.getElementById('name').value, stateOf()]")).toEqual([
    "Ann Lee-Smith, 42 é",
    "Ann Lee-Smith, 42 é",
  ]);
  expect(await inPage("return seen")).toEqual(["beforeinput:insertText", "input:insertText"]);
  // clear: false appends at the end.
  await call("/browser/write", { selector: { label: "Name" }, text: "!", clear: false });
  expect(await inPage("return stateOf()")).toBe("Ann Lee-Smith, 42 é!");
  // Empty text with clear empties it, through an input event too.
  await call("/browser/write", { selector: { label: "Name" }, text: "" });
  expect(await inPage("return [document.getElementById('name').value, stateOf()]")).toEqual(["", ""]);
}, 60_000);

test("a textarea and a rich editor take the text; a new line still goes as Enter", async () => {
  await call("/browser/write", { selector: { label: "Notes" }, text: "one\ntwo" });
  expect(await inPage("return document.getElementById('notes').value")).toBe("one\ntwo");
  await call("/browser/write", { selector: { label: "Rich" }, text: "after" });
  expect(await inPage("return document.getElementById('rich').textContent")).toBe("after");
  await call("/browser/write", { selector: { label: "Rich" }, text: " more", clear: false });
  expect(await inPage("return document.getElementById('rich').textContent")).toBe("after more");
}, 60_000);

test("a code split over one-character boxes fills box after box, as keys do", async () => {
  const res = await call("/browser/write", { selector: { label: "Digit 1" }, text: "4821" });
  expect(res.status).toBe(200);
  expect(
    await inPage("return [1, 2, 3, 4].map((i) => document.getElementById('d' + i).value).join('')"),
  ).toBe("4821");
}, 60_000);

test("a field that keeps fewer characters than given, and keeps the focus, says what it dropped", async () => {
  const res = await call("/browser/write", { selector: { label: "ZIP" }, text: "10115 Berlin" });
  expect(res.status).toBe(400);
  expect(res.body.error).toBe(
    '{"label":"ZIP"} kept the first 5 of the 12 characters given (its maxlength is 5) and dropped the rest: write at most 5',
  );
  expect(await inPage("return document.getElementById('zip').value")).toBe("10115");
  // Within the limit: no word of it.
  expect((await call("/browser/write", { selector: { label: "ZIP" }, text: "80331" })).status).toBe(200);
  // A field that takes the spaces out as they come keeps every digit: nothing was dropped.
  const card = await call("/browser/write", { selector: { label: "Card" }, text: "4242 4242 4242 4242" });
  expect([card.status, card.body.error]).toEqual([200, undefined]);
  expect(await inPage("return document.getElementById('card').value")).toBe("4242424242424242");
}, 60_000);

test("an insert whose input handler alerts is done, and its result names the dialog", async () => {
  const res = await call("/browser/write", { selector: { label: "Loud" }, text: "hello" });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ dialog: "got hello", url: "", title: "" });
  expect((await call("/browser/dialog", { action: "accept" })).status).toBe(200);
  expect(await inPage("return document.getElementById('loud').value")).toBe("hello");
}, 60_000);

test("a field that hands its focus away gets nothing: a 400 says so, and the other field is untouched", async () => {
  await call("/browser/write", { selector: { label: "Notes" }, text: "kept" });
  const res = await call("/browser/write", { selector: { label: "Shy" }, text: "lost" });
  expect([res.status, res.body.error]).toEqual([400, expect.stringContaining("would not take the focus")]);
  expect(
    await inPage("return [document.getElementById('shy').value, document.getElementById('notes').value]"),
  ).toEqual(["", "kept"]);
}, 60_000);
