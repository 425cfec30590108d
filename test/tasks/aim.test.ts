// An agent's hands (issue 28), the second half: where a click lands (a partly covered button is
// clicked on what shows of it, a covered one is a 400 that says so), text matches by nth and
// within a ref, boxes to aim x and y with, a drag to a point or an offset, a range written, back
// and reload onto a page whose picture never loads, and a pop-up that keeps what its opener added.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Peer, peer } from "../support/peer.ts";

let p: Peer;
const W = "tasks-aim";
const never = new Promise<Response>(() => undefined);

beforeAll(async () => {
  p = await peer(W, { "/never.png": () => never });
  p.page(
    "/covered",
    `<title>Covered</title><script>window.done = [];</script>
<style>button{position:absolute;width:200px;height:40px} .veil{position:absolute;background:rgba(0,0,0,.4)}</style>
<button id="half" style="top:40px;left:20px" onclick="done.push('half')">Half</button>
<div class="veil" style="top:30px;left:0;width:150px;height:60px">banner</div>
<button id="whole" style="top:140px;left:20px" onclick="done.push('whole')">Whole</button>
<div class="veil" id="modal" style="top:120px;left:0;width:300px;height:90px">modal</div>`,
  );
  p.page(
    "/posts",
    `<title>Posts</title><script>window.done = [];</script>
<p>Press Reply on the second post.</p>
<section aria-label="Post 1"><p>First post</p><button onclick="done.push(1)">Reply</button></section>
<section aria-label="Post 2"><p>Second post</p><button onclick="done.push(2)">Reply</button></section>
<section aria-label="Post 3"><p>Third post</p><button onclick="done.push(3)">Reply</button></section>`,
  );
  p.page(
    "/board",
    `<title>Board</title>
<div id="card" style="position:absolute;left:20px;top:20px;width:60px;height:40px;background:#cde;cursor:grab">card</div>
<div id="bin" style="position:absolute;left:300px;top:200px;width:120px;height:80px;border:1px dashed" aria-dropeffect="move">bin</div>
<script>
const card = document.getElementById('card'); let from = null;
card.addEventListener('pointerdown', (e) => { from = { x: e.clientX - card.offsetLeft, y: e.clientY - card.offsetTop }; card.setPointerCapture(e.pointerId); });
card.addEventListener('pointermove', (e) => { if (from) { card.style.left = (e.clientX - from.x) + 'px'; card.style.top = (e.clientY - from.y) + 'px'; } });
card.addEventListener('pointerup', () => { from = null; });
</script>`,
  );
  p.page(
    "/range",
    `<title>Range</title><label for="vol">Volume</label><input id="vol" type="range" min="0" max="100" value="10">
<output id="out"></output><script>vol.addEventListener('change', () => out.textContent = 'changed to ' + vol.value);</script>`,
  );
  p.page(
    "/fields",
    `<title>Fields</title><label>Name <input value="Ann Lee"></label><label>Password <input type="password" value="hunter22"></label>`,
  );
  p.page(
    "/framed",
    `<title>Framed</title><p>Above the frame.</p><iframe src="/inner" style="margin:40px;border:6px solid #888;padding:10px" width="400" height="160"></iframe>`,
  );
  p.page(
    "/inner",
    `<title>Inner</title><p id="x">Alpha beta gamma delta.</p><p>Second line.</p>
<script>addEventListener('mouseup', () => { window.atUp = String(getSelection()); });</script>`,
  );
  p.page("/start", `<title>Start</title><a href="/hang">Hang</a>`);
  p.page("/hang", `<title>Hang</title><h1>Usable</h1><img src="/never.png">`);
  p.page("/popped", `<title>Popped</title><p>the pop-up's own page</p>`);
  p.page(
    "/opener",
    `<title>Opener</title><button onclick="const w = window.open('/popped');
      w.addEventListener('load', () => w.document.body.insertAdjacentHTML('beforeend', '<p>added by the opener</p>'))">Open</button>`,
  );
});
afterAll(() => p.close());

const done = async () => (await p.tool("execute_script", { script: "window.done" })).result as unknown[];
const refNamed = (read: any, name: string) => {
  const el = read.elements.find((e: any) => e.name === name);
  expect([name, el?.ref]).toEqual([name, expect.stringMatching(/^[a-z]+\d+$/)]);
  return el.ref as string;
};

test("a button under a banner's edge is clicked on what shows of it; one under a modal is a 400 naming the modal", async () => {
  const read = await p.tool("read_page", { url: p.site.url("/covered") });
  await p.tool("interact", { action: "click", selector: { ref: refNamed(read, "Half") } });
  expect(await done()).toEqual(["half"]);
  const why = await p.refused("interact", { action: "click", selector: { ref: refNamed(read, "Whole") } });
  expect(why).toContain("is covered by <div#modal");
  expect(why).toContain("close or wait for what covers it");
  expect(await done()).toEqual(["half"]);
});

test("a text match by nth, and inside a ref", async () => {
  const read = await p.tool("read_page", { url: p.site.url("/posts") });
  const post2 = read.landmarks.find((l: any) => l.name === "Post 2").ref;
  await p.tool("interact", { action: "click", selector: { text: "Reply", within: { ref: post2 } } });
  await p.tool("interact", { action: "click", selector: { text: "Reply", nth: 3 } });
  expect(await done()).toEqual([2, 3]);
  const none = await p.refused("interact", {
    action: "click",
    selector: { text: "Reply", nth: 4 },
    timeout: 0,
  });
  expect(none).toContain("shows 3 visible matches");
});

test("boxes: read_page's and extract's agree, and x and y from one click that element", async () => {
  const read = await p.tool("read_page", { url: p.site.url("/posts"), boxes: true });
  const reply = read.elements.filter((e: any) => e.name === "Reply")[0];
  const got = await p.tool("extract", { selector: { ref: reply.ref }, get: "box" });
  expect(got.result.width).toBeGreaterThan(10);
  expect(reply.box).toEqual({
    x: Math.round(got.result.x),
    y: Math.round(got.result.y),
    width: Math.round(got.result.width),
    height: Math.round(got.result.height),
  });
  const at = { x: got.result.x + got.result.width / 2, y: got.result.y + got.result.height / 2 };
  await p.tool("interact", { action: "click", ...at });
  expect(await done()).toEqual([1]);
  const all = await p.tool("extract", { selector: { text: "Reply" }, get: "box", all: true });
  expect(all.results.map((b: any) => typeof b.y)).toEqual(["number", "number", "number"]);
});

test("a drag to a point of the window, and to an offset inside a drop target", async () => {
  const read = await p.tool("read_page", { url: p.site.url("/board") });
  const card = refNamed(read, "card");
  expect(read.elements.find((e: any) => e.name === "bin")?.droppable).toBe(true);
  await p.tool("interact", { action: "drag", selector: { ref: card }, x: 200, y: 100 });
  const moved = await p.tool("extract", { selector: { ref: card }, get: "box" });
  expect([Math.round(moved.result.x + 30), Math.round(moved.result.y + 20)]).toEqual([200, 100]);
  await p.tool("interact", {
    action: "drag",
    selector: { ref: card },
    target: { ref: refNamed(read, "bin") },
    offset: { x: 10, y: 70 },
  });
  const dropped = await p.tool("extract", { selector: { ref: card }, get: "box" });
  expect([Math.round(dropped.result.x + 30), Math.round(dropped.result.y + 20)]).toEqual([310, 270]);
});

test("write sets a range input's value whole, with its change event; a value it would clamp is refused", async () => {
  const read = await p.tool("read_page", { url: p.site.url("/range") });
  const vol = refNamed(read, "Volume");
  await p.tool("write", { selector: { ref: vol }, text: "70" });
  expect((await p.tool("extract", { selector: { ref: vol }, get: "value" })).result).toBe("70");
  expect((await p.tool("read_page")).text).toContain("changed to 70");
  expect(await p.refused("write", { selector: { ref: vol }, text: "500" })).toContain("max 100");
});

test("select_text in a field selects its value there; a password's value never comes back", async () => {
  const read = await p.tool("read_page", { url: p.site.url("/fields") });
  const name = await p.tool("interact", { action: "select_text", selector: { ref: refNamed(read, "Name") } });
  expect(name.selection).toBe("Ann Lee");
  const got = await p.tool("execute_script", { script: "document.activeElement.selectionEnd" });
  expect(got.result).toBe(7);
  const pw = await p.tool("interact", {
    action: "select_text",
    selector: { ref: refNamed(read, "Password") },
  });
  expect(pw.selection).toBe("[hidden]");
  expect(JSON.stringify(pw.raw)).not.toContain("hunter22");
});

test("select_text inside a frame: the pointer's drag lands where the frame shows the words", async () => {
  const top = await p.tool("read_page", { url: p.site.url("/framed") });
  const frame = top.frames[0].ref;
  await p.tool("switch", { frame: { ref: frame } });
  const got = await p.tool("interact", {
    action: "select_text",
    selector: { text: "beta", exact: false },
    target: { text: "gamma", exact: false },
  });
  expect(got.selection).toBe("beta gamma");
  // The pointer's own drag made it (no fix after): the frame's mouse events came where the words are.
  const seen = await p.tool("execute_script", { script: "window.atUp" });
  expect(seen.result).toBe("beta gamma");
  await p.tool("switch", { frame: null });
});

test("back, forward and reload onto a page whose picture never loads answer once it is usable", async () => {
  await p.tool("navigate", { url: p.site.url("/start") });
  const went = await p.tool("navigate", { url: p.site.url("/hang") });
  expect([went.title, went.loading]).toEqual(["Hang", true]);
  await p.tool("navigate", { back: true });
  const forward = await p.tool("navigate", { forward: true });
  expect([forward.title, forward.loading]).toEqual(["Hang", true]);
  const reloaded = await p.tool("navigate", { reload: true });
  expect([reloaded.title, reloaded.loading]).toEqual(["Hang", true]);
  expect((await p.tool("read_page")).text).toContain("Usable");
}, 60_000);

test("a pop-up keeps what its opener added to it", async () => {
  await p.tool("navigate", { url: p.site.url("/opener") });
  await p.tool("interact", { action: "click", selector: { text: "Open" } });
  // The pop-up loads, then its opener adds to it.
  await Bun.sleep(1000);
  await p.tool("switch", { tab: 1 });
  const read = await p.tool("read_page");
  expect(read.text).toContain("the pop-up's own page");
  expect(read.text).toContain("added by the opener");
  await p.tool("switch", { tab: "close" });
});
