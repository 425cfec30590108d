// The gestures a hand makes beyond a press on an element's middle, on the real Grid, each proven by
// what the page's own listeners saw and wrote into the page: a stroke drawn on a canvas through
// points (from the canvas's top left, or the viewport's; in a frame of this host or another; over
// MCP too; 200 points in one call), a hover's path, a textarea resized by its corner, a block
// dragged from a point of it onto a bin (after a long press), a button that acts only after a 1 s
// hold, and the wheel over an inner scroll box (a frame's too) that scrolls the box, not the page.
// And the opposite: an ordinary click and drag still do what they did.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { type McpClient, mcpClient } from "../support/mcp.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "gestures-e2e";
let server: TestServer;
let mcp: McpClient;

const site = serveFixture({
  // A canvas at 60,90 that writes each stroke (pointer down to up, buttons held) and each unpressed
  // pointer move as canvas points into the page's text.
  "/draw": () =>
    html(`<title>Draw</title><style>body{margin:0}</style>
<canvas id=c width=300 height=200 style="position:absolute;left:60px;top:90px;background:#eee"></canvas>
<pre id=strokes style="position:absolute;top:320px"></pre><pre id=hover style="position:absolute;top:360px"></pre>
<script>
const c = document.getElementById("c");
const g = c.getContext("2d");
const pt = (e) => { const r = c.getBoundingClientRect(); return Math.round(e.clientX - r.left) + "," + Math.round(e.clientY - r.top); };
let stroke = null;
const hovered = [];
c.addEventListener("pointerdown", (e) => { stroke = [pt(e)]; g.beginPath(); g.moveTo(e.offsetX, e.offsetY); });
c.addEventListener("pointermove", (e) => {
  if (stroke && e.buttons & 1) { stroke.push(pt(e)); g.lineTo(e.offsetX, e.offsetY); g.stroke(); }
  else if (!e.buttons) { hovered.push(pt(e)); document.getElementById("hover").textContent = hovered.join(" "); }
});
c.addEventListener("pointerup", (e) => {
  if (!stroke) return;
  stroke.push(pt(e));
  const line = document.createElement("div");
  line.className = "stroke";
  line.textContent = stroke.join(" ");
  document.getElementById("strokes").append(line);
  stroke = null;
});
</script>`),
  // The canvas page in a frame, from this host and from another, lower on the page.
  "/framed": (req) =>
    html(`<title>Framed</title><style>body{margin:0}</style><div style="height:40px">Game</div>
<iframe id=f src="${new URL(req.url).searchParams.get("other") ? site.url("/draw", "other.example.test") : "/draw"}" style="margin-left:30px;width:450px;height:300px;border:5px solid"></iframe>`),
  "/framedstack": () =>
    html(
      `<title>Framed stack</title><div style="height:60px">Game</div><iframe id=f src="${site.url("/stack", "other.example.test")}" style="margin-left:20px;width:900px;height:500px"></iframe>`,
    ),
  // Text whose presses are written into the page: a selection's drag must start on it.
  "/para": () =>
    html(`<title>Para</title><div style="height:120px"></div><p id=p style="margin-left:80px">Lorem ipsum dolor sit amet</p><p id=log></p>
<script>document.addEventListener("mousedown", (e) => { document.getElementById("log").textContent += "down on " + e.target.id + ";"; });</script>`),
  "/framedpara": () =>
    html(`<title>Framed para</title><div style="height:70px"></div><iframe id=f src="${site.url("/para", "other.example.test")}" style="margin-left:40px;width:600px;height:400px"></iframe>
<script>document.addEventListener("mousedown", () => { document.title = "pressed outside the frame"; });</script>`),
  "/framedbox": () =>
    html(
      `<title>Framed box</title><iframe id=f src="${site.url("/scrollbox", "other.example.test")}" style="width:600px;height:500px"></iframe>`,
    ),
  "/resize": () =>
    html(`<title>Resize</title><style>body{margin:0}</style>
<textarea id=ta style="position:absolute;left:40px;top:100px;width:200px;height:80px;resize:both;box-sizing:border-box">notes</textarea>`),
  // A block moved by pointer events (no HTML5 drag), the point it was grabbed at and where it was
  // dropped written into the page, and whether it was held before it moved.
  "/stack": () =>
    html(`<title>Stack</title><style>body{margin:0}</style>
<div id=piece style="position:absolute;left:40px;top:200px;width:120px;height:40px;background:#c33;touch-action:none">Block</div>
<div id=bin style="position:absolute;left:500px;top:150px;width:200px;height:150px;border:2px solid">Bin</div>
<p id=log style="position:absolute;top:400px"></p>
<script>
const piece = document.getElementById("piece");
let grab = null;
piece.addEventListener("pointerdown", (e) => {
  const r = piece.getBoundingClientRect();
  grab = { x: Math.round(e.clientX - r.left), y: Math.round(e.clientY - r.top), t: performance.now(), waited: null };
});
document.addEventListener("pointermove", (e) => {
  if (!grab || !(e.buttons & 1)) return;
  if (grab.waited === null) grab.waited = performance.now() - grab.t;
  piece.style.left = e.clientX - grab.x + "px";
  piece.style.top = e.clientY - grab.y + "px";
});
document.addEventListener("pointerup", (e) => {
  if (!grab) return;
  piece.style.pointerEvents = "none";
  const under = document.elementFromPoint(e.clientX, e.clientY);
  piece.style.pointerEvents = "";
  document.getElementById("log").textContent =
    "grabbed " + grab.x + "," + grab.y + " held " + (grab.waited >= 450 ? "long" : "short") + " dropped on " + (under && under.id);
  grab = null;
});
</script>`),
  // Acts only when pressed for a whole second; a shorter press says so.
  "/hold": () =>
    html(`<title>Hold</title>
<button id=hold style="margin:40px;padding:20px">Hold to confirm</button><p id=status>idle</p>
<script>
const b = document.getElementById("hold");
const status = document.getElementById("status");
let timer = null;
let done = false;
b.addEventListener("pointerdown", () => { done = false; status.textContent = "holding"; timer = setTimeout(() => { done = true; status.textContent = "confirmed"; }, 1000); });
b.addEventListener("pointerup", () => { clearTimeout(timer); if (!done) status.textContent = "released early"; });
</script>`),
  // An inner scroll box on a long page: the wheel over it must scroll it, not the page.
  "/scrollbox": () =>
    html(`<title>Scroll box</title><style>body{margin:0}</style>
<div style="height:300px">Top</div>
<div id=box style="height:150px;width:300px;overflow:auto;border:1px solid">${Array.from({ length: 80 }, (_, i) => `<p>Row ${i}</p>`).join("")}</div>
<div style="height:3000px">Rest</div>`),
});

async function call(path: string, body: unknown = {}) {
  return server.call("POST", path, body, W);
}

async function go(path: string) {
  expect((await call("/browser/navigate", { url: site.url(path) })).status).toBe(200);
}

async function gesture(action: string, body: unknown) {
  const res = await call(`/browser/interact/${action}`, body);
  expect([action, res.status, res.body.error]).toEqual([action, 200, undefined]);
  return res;
}

/** The texts of every match, read through extract (the page's own words). */
async function texts(css: string): Promise<string[]> {
  const res = await call("/browser/extract", { selector: { css }, all: true, timeout: 0 });
  expect(res.status).toBe(200);
  return res.body.results;
}

async function js(script: string): Promise<any> {
  const res = await call("/browser/script", { script });
  expect(res.status).toBe(200);
  return res.body.result;
}

/** "x,y x,y …" as points. */
const points = (s: string) =>
  s
    .trim()
    .split(/\s+/)
    .map((p) => p.split(",").map(Number) as [number, number]);

/** The largest gap between two points the page saw in a row. */
const widestGap = (ps: [number, number][]) =>
  Math.max(
    ...ps.slice(1).map(([x, y], i) => Math.hypot(x - (ps[i] as number[])[0]!, y - (ps[i] as number[])[1]!)),
  );

beforeAll(async () => {
  server = await startServer({ dataDir: false });
  expect((await call("/browser", { url: site.url("/draw") })).status).toBe(200);
  mcp = await mcpClient(server, W);
}, 180_000);

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

describe("a path", () => {
  test("drag along path on a canvas: one stroke from its first point to its last, passing every corner, continuous", async () => {
    await go("/draw");
    const path = [
      { x: 20, y: 30 },
      { x: 220, y: 30 },
      { x: 220, y: 150 },
      { x: 100, y: 170 },
    ];
    await gesture("drag", { selector: { css: "#c" }, path });
    const strokes = await texts(".stroke");
    expect(strokes.length).toBe(1);
    const seen = points(strokes[0] as string);
    // Points are the canvas's own: measured from its top left (it sits at 60,90).
    expect(seen[0]).toEqual([20, 30]);
    expect(seen.at(-1)).toEqual([100, 170]);
    expect(seen).toContainEqual([220, 30]);
    expect(seen).toContainEqual([220, 150]);
    expect(seen.length).toBeGreaterThan(40);
    expect(widestGap(seen)).toBeLessThanOrEqual(11);
    // Along the first two segments, the line itself.
    for (const [x, y] of seen.slice(0, 30)) expect(y === 30 || x === 220).toBe(true);
  });

  test("over MCP, the one interact tool draws the same stroke", async () => {
    await go("/draw");
    const path = [
      { x: 40, y: 40 },
      { x: 40, y: 140 },
    ];
    const got = await mcp.tool("interact", { action: "drag", selector: { css: "#c" }, path });
    expect(got.isError).toBeFalsy();
    const seen = points((await texts(".stroke"))[0] as string);
    expect(seen[0]).toEqual([40, 40]);
    expect(seen.at(-1)).toEqual([40, 140]);
    expect(seen.every(([x]) => x === 40)).toBe(true);
  });

  test("without a selector the points are the viewport's; a hover's path moves unpressed", async () => {
    await go("/draw");
    await gesture("drag", {
      path: [
        { x: 70, y: 100 },
        { x: 170, y: 100 },
      ],
    });
    const stroke = points((await texts(".stroke"))[0] as string);
    expect(stroke[0]).toEqual([10, 10]);
    expect(stroke.at(-1)).toEqual([110, 10]);
    await gesture("hover", {
      selector: { css: "#c" },
      path: [
        { x: 10, y: 100 },
        { x: 10, y: 160 },
      ],
    });
    const hovered = points((await texts("#hover"))[0] as string).filter(([, y]) => y >= 100);
    expect(hovered[0]).toEqual([10, 100]);
    expect(hovered.at(-1)).toEqual([10, 160]);
    expect(hovered.every(([x]) => x === 10)).toBe(true);
    expect(widestGap(hovered)).toBeLessThanOrEqual(11);
    // The hover pressed nothing: still the one stroke.
    expect((await texts(".stroke")).length).toBe(1);
  });

  for (const [name, q] of [
    ["this host", ""],
    ["another host", "?other=1"],
  ] as const)
    test(`a canvas in a frame from ${name}: the points are still the canvas's own`, async () => {
      await go(`/framed${q}`);
      expect((await call("/browser/switch", { frame: { css: "#f" } })).status).toBe(200);
      await gesture("drag", {
        selector: { css: "#c" },
        path: [
          { x: 20, y: 30 },
          { x: 120, y: 30 },
          { x: 120, y: 90 },
        ],
      });
      const seen = points((await texts(".stroke"))[0] as string);
      expect(seen[0]).toEqual([20, 30]);
      expect(seen.at(-1)).toEqual([120, 90]);
      expect(seen).toContainEqual([120, 30]);
      expect(widestGap(seen)).toBeLessThanOrEqual(11);
      expect((await call("/browser/switch", { frame: null })).status).toBe(200);
    });

  test("a path of 200 points scribbled across the canvas finishes in one call and reaches its last point", async () => {
    await go("/draw");
    const path = Array.from({ length: 200 }, (_, i) => ({ x: i % 2 ? 290 : 10, y: 5 + Math.floor(i * 0.9) }));
    const t0 = Date.now();
    await gesture("drag", { selector: { css: "#c" }, path });
    const took = Date.now() - t0;
    const seen = points((await texts(".stroke"))[0] as string);
    expect(seen[0]).toEqual([10, 5]);
    expect(seen.at(-1)).toEqual([290, 184]);
    expect(seen).toContainEqual([10, 183]);
    console.log(`200-point scribble (56,000 px): ${seen.length} points seen, ${took} ms`);
  });

  test("a textarea resized by dragging its corner", async () => {
    await go("/resize");
    const before = await js(
      "const r = document.getElementById('ta').getBoundingClientRect(); return [r.width, r.height]",
    );
    expect(before).toEqual([200, 80]);
    await gesture("drag", {
      selector: { css: "#ta" },
      path: [
        { x: 196, y: 76 },
        { x: 296, y: 136 },
      ],
    });
    const [w, h] = await js(
      "const r = document.getElementById('ta').getBoundingClientRect(); return [r.width, r.height]",
    );
    expect(Math.abs(w - 300)).toBeLessThanOrEqual(6);
    expect(Math.abs(h - 140)).toBeLessThanOrEqual(6);
  });

  test("a block dragged from a point of it onto a bin; held first with hold; an ordinary drag still grabs its middle", async () => {
    await go("/stack");
    await gesture("drag", { selector: { css: "#piece" }, path: [{ x: 6, y: 8 }], target: { css: "#bin" } });
    expect(await texts("#log")).toEqual(["grabbed 6,8 held short dropped on bin"]);
    await go("/stack");
    await gesture("drag", { selector: { css: "#piece" }, target: { css: "#bin" } });
    expect(await texts("#log")).toEqual(["grabbed 60,20 held short dropped on bin"]);
    await go("/stack");
    await gesture("drag", { selector: { css: "#piece" }, target: { css: "#bin" }, hold: 0.6 });
    expect(await texts("#log")).toEqual(["grabbed 60,20 held long dropped on bin"]);
    // From a point of the viewport (the block's corner at 40,200) to a point of the bin.
    await go("/stack");
    await gesture("drag", {
      path: [
        { x: 45, y: 205 },
        { x: 300, y: 100 },
        { x: 600, y: 250 },
      ],
    });
    expect(await texts("#log")).toEqual(["grabbed 5,5 held short dropped on bin"]);
  });

  test("in a frame of another host, an ordinary drag and a drag from a point of the block both land in the bin", async () => {
    await go("/framedstack");
    expect((await call("/browser/switch", { frame: { css: "#f" } })).status).toBe(200);
    await gesture("drag", { selector: { css: "#piece" }, target: { css: "#bin" } });
    expect(await texts("#log")).toEqual(["grabbed 60,20 held short dropped on bin"]);
    await js("location.reload()");
    await gesture("drag", { selector: { css: "#piece" }, path: [{ x: 6, y: 8 }], target: { css: "#bin" } });
    expect(await texts("#log")).toEqual(["grabbed 6,8 held short dropped on bin"]);
    expect((await call("/browser/switch", { frame: null })).status).toBe(200);
  });

  test("select_text in a frame of another host presses on the text itself, not on the page around the frame", async () => {
    await go("/framedpara");
    expect((await call("/browser/switch", { frame: { css: "#f" } })).status).toBe(200);
    const sel = await gesture("select_text", { selector: { css: "#p" } });
    expect(sel.body.selection).toBe("Lorem ipsum dolor sit amet");
    expect(await texts("#log")).toEqual(["down on p;"]);
    expect((await call("/browser/switch", { frame: null })).status).toBe(200);
    expect(await js("return document.title")).toBe("Framed para");
  });

  test("a point outside the viewport, or a path with a drag's x and y, is a 400 naming path", async () => {
    await go("/draw");
    const outside = await call("/browser/interact/drag", {
      selector: { css: "#c" },
      path: [
        { x: 1, y: 1 },
        { x: 5000, y: 1 },
      ],
    });
    expect(outside.status).toBe(400);
    expect(outside.body.error).toContain(
      'field "path" point 2 (5000, 1) falls at 5060, 91, outside the viewport',
    );
    const both = await call("/browser/interact/drag", { path: [{ x: 1, y: 1 }], x: 5, y: 5 });
    expect(both.status).toBe(400);
    expect(both.body.error).toContain("must not come with path");
    expect((await texts(".stroke")).length).toBe(0);
  });
});

describe("press and hold", () => {
  test("click with hold 1.3 keeps the button pressed past its second; an ordinary click, or a short hold, does not", async () => {
    await go("/hold");
    await gesture("click", { selector: { css: "#hold" } });
    expect(await texts("#status")).toEqual(["released early"]);
    await gesture("click", { selector: { css: "#hold" }, hold: 0.4 });
    expect(await texts("#status")).toEqual(["released early"]);
    const t0 = Date.now();
    await gesture("click", { selector: { css: "#hold" }, hold: 1.3 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1300);
    expect(await texts("#status")).toEqual(["confirmed"]);
    const long = await call("/browser/interact/click", { selector: { css: "#hold" }, hold: 11 });
    expect(long.status).toBe(400);
    expect(long.body.error).toContain('field "hold" must be at most 10');
  });
});

describe("the wheel", () => {
  test("scroll with offset turns the wheel over an inner box: the box scrolls, the page does not", async () => {
    await go("/scrollbox");
    // Without offset, scroll still brings the element into view.
    await gesture("scroll", { selector: { css: "#box" } });
    const pageY = await js("return scrollY");
    expect(await js("return document.getElementById('box').scrollTop")).toBe(0);
    await gesture("scroll", { selector: { css: "#box" }, offset: { x: 0, y: 400 } });
    const until = Date.now() + 5_000;
    let top = 0;
    while (Date.now() < until) {
      top = await js("return document.getElementById('box').scrollTop");
      if (top >= 390) break;
      await Bun.sleep(100);
    }
    expect(top).toBeGreaterThanOrEqual(390);
    expect(await js("return scrollY")).toBe(pageY);
    await gesture("scroll", { selector: { css: "#box" }, offset: { x: 0, y: -200 } });
    await Bun.sleep(600);
    const back = await js("return document.getElementById('box').scrollTop");
    expect(back).toBeLessThan(top);
    expect(back).toBeGreaterThan(0);
    expect(await js("return scrollY")).toBe(pageY);
  });

  test("over an inner box in a frame of another host, the wheel scrolls the box, not the frame's page", async () => {
    await go("/framedbox");
    expect((await call("/browser/switch", { frame: { css: "#f" } })).status).toBe(200);
    await gesture("scroll", { selector: { css: "#box" } });
    const pageY = await js("return scrollY");
    await gesture("scroll", { selector: { css: "#box" }, offset: { x: 0, y: 300 } });
    const until = Date.now() + 5_000;
    let top = 0;
    while (Date.now() < until && top < 290) {
      top = await js("return document.getElementById('box').scrollTop");
      await Bun.sleep(100);
    }
    expect(top).toBeGreaterThanOrEqual(290);
    expect(await js("return scrollY")).toBe(pageY);
    expect((await call("/browser/switch", { frame: null })).status).toBe(200);
  });

  test("at a point of the viewport outside the box, the wheel scrolls the page", async () => {
    await go("/scrollbox");
    await gesture("scroll", { x: 600, y: 100, offset: { x: 0, y: 500 } });
    const until = Date.now() + 5_000;
    let y = 0;
    while (Date.now() < until && y < 490) {
      y = await js("return scrollY");
      await Bun.sleep(100);
    }
    expect(y).toBeGreaterThanOrEqual(490);
    expect(await js("return document.getElementById('box').scrollTop")).toBe(0);
  });
});
