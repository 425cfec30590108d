// The inputs a pointer or a selector alone could not give, on the real Grid, each proven by what the
// page's own listeners saw: a click with modifiers held, gestures at a viewport point on a canvas,
// range/date/time/color inputs set through select, several files in one `multiple` input, and a
// drop of workspace files and data onto a drop zone.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { html, serveFixture } from "../support/fixtures.ts";
import { type McpClient, mcpClient } from "../support/mcp.ts";
import { endAll, logLines, startServer, type TestServer } from "../support/server.ts";

const W = "inputs-e2e";
let server: TestServer;
let mcp: McpClient;
const bodies: string[] = [];

// Every event the page's listeners saw, in the main world, as one list the test reads back.
const LOG = `<script>window.seen = []; function log(s) { window.seen.push(s); }</script>`;

const site = serveFixture({
  "/mods": () =>
    html(`<title>Mods</title>${LOG}<button id=b style="margin:40px;padding:20px">Go</button>
<script>
const mods = (e) => ["ctrl", "shift", "alt", "meta"].filter((m) => e[m + "Key"]).join("+") || "none";
const b = document.getElementById("b");
b.addEventListener("click", (e) => log("click:" + mods(e)));
b.addEventListener("dblclick", (e) => log("dblclick:" + mods(e)));
b.addEventListener("contextmenu", (e) => { e.preventDefault(); log("contextmenu:" + mods(e)); });
</script>`),
  "/canvas": () =>
    html(`<title>Canvas</title>${LOG}<style>body{margin:0}</style>
<canvas id=c width=400 height=300 style="position:absolute;left:0;top:0"></canvas>
<script>
const c = document.getElementById("c");
const at = (e) => Math.round(e.clientX) + "," + Math.round(e.clientY);
c.addEventListener("click", (e) => log("click@" + at(e)));
c.addEventListener("dblclick", (e) => log("dblclick@" + at(e)));
c.addEventListener("contextmenu", (e) => { e.preventDefault(); log("contextmenu@" + at(e)); });
c.addEventListener("mousemove", (e) => log("move@" + at(e)));
</script>`),
  "/fields": () =>
    html(`<title>Fields</title>${LOG}
<label>Volume <input id=r type=range min=0 max=100 step=5 value=10></label>
<label>Day <input id=d type=date></label>
<label>At <input id=t type=time></label>
<label>Tint <input id=k type=color value="#000000"></label>
<label>Name <input id=n type=text></label>
<script>
for (const el of document.querySelectorAll("input")) {
  el.addEventListener("input", () => log("input:" + el.id + "=" + el.value));
  el.addEventListener("change", () => log("change:" + el.id + "=" + el.value));
}
</script>`),
  "/toppings": () =>
    html(`<title>Toppings</title>${LOG}
<label>Toppings <select id=tp multiple size=4><optgroup label="Veg"><option>Onion</option><option selected>Pepper</option></optgroup><optgroup label="Meat"><option value=ham>Ham</option></optgroup></select></label>
<script>tp.addEventListener("change", () => log([...tp.selectedOptions].map((o) => o.value).join("+")));</script>`),
  "/many": () =>
    html(`<title>Many</title>${LOG}
<label>Photos <input id=m type=file multiple></label>
<label>One <input id=o type=file></label>
<script>
for (const el of document.querySelectorAll("input")) el.addEventListener("change", () => {
  for (const f of el.files) f.text().then((t) => log(el.id + ":" + f.name + ":" + f.size + ":" + t));
});
</script>`),
  "/drop": () =>
    html(`<title>Drop</title>${LOG}
<div id=zone style="width:300px;height:120px;border:2px dashed">Drop here</div>
<div id=plain style="width:300px;height:60px">Not a zone</div>
<script>
const zone = document.getElementById("zone");
zone.addEventListener("dragenter", () => log("dragenter"));
zone.addEventListener("dragover", (e) => { e.preventDefault(); log("dragover"); });
zone.addEventListener("drop", (e) => {
  e.preventDefault();
  const dt = e.dataTransfer;
  log("drop:" + e.isTrusted + ":" + dt.types.join(","));
  if (dt.types.includes("text/plain")) log("text:" + dt.getData("text/plain"));
  for (const f of dt.files) f.text().then((t) => log("file:" + f.name + ":" + f.type + ":" + t));
});
document.getElementById("plain").addEventListener("drop", () => log("plain-drop"));
</script>`),
  "/board": () =>
    html(`<title>Board</title>${LOG}
<label>Search <input id=q></label> <button id=go>Go</button>
<div id=card draggable=true>Card A</div>
<ul><li aria-roledescription="sortable">Row 1</li></ul>
<div id=still>Just text</div>
<div id=lane style="width:200px;height:80px;border:1px solid">Lane</div>
<script>
document.getElementById("card").addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", "card"));
const lane = document.getElementById("lane");
lane.addEventListener("dragover", (e) => e.preventDefault());
lane.addEventListener("drop", (e) => log("lane got " + e.dataTransfer.getData("text/plain")));
</script>`),
  "/framed": () =>
    html(`<title>Framed</title><h1>Shop</h1><iframe id=pay src="/pay"></iframe>
<iframe id=ads src="${site.url("/outer", "other.example.test")}"></iframe>`),
  "/ads": () =>
    html(
      `<title>Ads</title>${Array.from({ length: 40 }, (_, i) => `<iframe srcdoc="<p>ad ${i}</p><iframe srcdoc='<p>inner</p>'></iframe>"></iframe>`).join("")}<p>Last</p>`,
    ),
  "/pay": () => html(`<title>Pay</title><button>Pay now</button>`),
  "/outer": () => html(`<title>Outer</title><iframe id=inner src="/deep"></iframe>`),
  "/deep": () => html(`<title>Deep</title><p id=deep>Deep text</p>`),
});

async function call(method: string, path: string, body?: unknown) {
  const res = await server.call(method, path, body, W);
  bodies.push(JSON.stringify(res.body));
  return res;
}

async function go(path: string) {
  const res = await call("POST", "/browser/navigate", { url: site.url(path) });
  expect(res.status).toBe(200);
}

/** What the page's listeners logged (read in the page's own world). */
async function seen(): Promise<string[]> {
  const res = await call("POST", "/browser/script", { script: "return window.seen" });
  expect(res.status).toBe(200);
  return res.body.result;
}

async function seenUntil(ok: (s: string[]) => boolean): Promise<string[]> {
  const until = Date.now() + 5_000;
  let got = await seen();
  while (!ok(got) && Date.now() < until) {
    await Bun.sleep(100);
    got = await seen();
  }
  return got;
}

function putFile(name: string, text: string) {
  const dir = join(server.dataDir as string, "sessions", W, "files");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), text);
}

beforeAll(async () => {
  server = await startServer();
  mcp = await mcpClient(server, W);
  expect((await call("POST", "/browser", { url: site.url("/mods") })).status).toBe(200);
}, 180_000);

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
  expect([...bodies, ...logLines].join("\n")).not.toMatch(/\b[0-9A-F]{32}\b/);
});

describe("modifiers", () => {
  test("a click holds the modifiers named, and only for that click", async () => {
    await go("/mods");
    const b = { css: "#b" };
    expect(
      (await call("POST", "/browser/interact/click", { selector: b, modifiers: ["Control", "Shift"] }))
        .status,
    ).toBe(200);
    expect(
      (await call("POST", "/browser/interact/click", { selector: b, modifiers: ["Alt", "Meta"] })).status,
    ).toBe(200);
    expect((await call("POST", "/browser/interact/click", { selector: b })).status).toBe(200);
    expect(
      (await call("POST", "/browser/interact/right_click", { selector: b, modifiers: ["Shift"] })).status,
    ).toBe(200);
    expect(await seen()).toEqual(["click:ctrl+shift", "click:alt+meta", "click:none", "contextmenu:shift"]);
  });

  test("modifiers on a gesture that is not a click, or an unknown one, are a 400 naming the field", async () => {
    const hover = await call("POST", "/browser/interact/hover", {
      selector: { css: "#b" },
      modifiers: ["Shift"],
    });
    expect(hover.status).toBe(400);
    expect(JSON.stringify(hover.body)).toContain("modifiers");
    const bad = await call("POST", "/browser/interact/click", {
      selector: { css: "#b" },
      modifiers: ["Hyper"],
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("modifiers");
  });
});

describe("a viewport point", () => {
  test("click, double_click, right_click and hover at {x, y} reach the canvas at that point", async () => {
    await go("/canvas");
    expect((await call("POST", "/browser/interact/click", { x: 120, y: 80 })).status).toBe(200);
    expect((await call("POST", "/browser/interact/double_click", { x: 30, y: 40 })).status).toBe(200);
    expect((await call("POST", "/browser/interact/right_click", { x: 250, y: 199 })).status).toBe(200);
    expect((await call("POST", "/browser/interact/hover", { x: 333, y: 222 })).status).toBe(200);
    const got = (await seen()).filter((s) => !s.startsWith("move@") || s === "move@333,222");
    expect(got).toEqual([
      "click@120,80",
      "click@30,40",
      "click@30,40",
      "dblclick@30,40",
      "contextmenu@250,199",
      "move@333,222",
    ]);
  });

  test("a point with a selector, half a point, or a point for a gesture that takes none is a 400", async () => {
    const both = await call("POST", "/browser/interact/click", { x: 1, y: 1, selector: { css: "#c" } });
    expect(both.status).toBe(400);
    expect(JSON.stringify(both.body)).toContain("selector");
    const half = await call("POST", "/browser/interact/click", { x: 1 });
    expect(half.status).toBe(400);
    expect(half.body.error).toContain('field "y"');
    const outside = await call("POST", "/browser/interact/click", { x: 5000, y: 10 });
    expect(outside.status).toBe(400);
    expect(outside.body.error).toContain('field "x" is outside the viewport');
    const focus = await call("POST", "/browser/interact/focus", { x: 1, y: 1 });
    expect(focus.status).toBe(400);
    expect(focus.body.error).toContain('field "x"');
  });
});

describe("select on value inputs", () => {
  test("a range, date, time and color input take the value, with input and change", async () => {
    await go("/fields");
    const set = (label: string, value: string) =>
      call("POST", "/browser/interact/select", { selector: { label }, value });
    const r = await set("Volume", "55");
    expect(r.status).toBe(200);
    expect(r.body.selected).toEqual({ label: "55", value: "55" });
    expect((await set("Day", "2024-05-31")).status).toBe(200);
    expect((await set("At", "13:45")).status).toBe(200);
    const k = await set("Tint", "#FF8800");
    expect(k.status).toBe(200);
    expect(k.body.selected.value).toBe("#ff8800");
    expect(await seen()).toEqual([
      "input:r=55",
      "change:r=55",
      "input:d=2024-05-31",
      "change:d=2024-05-31",
      "input:t=13:45",
      "change:t=13:45",
      "input:k=#ff8800",
      "change:k=#ff8800",
    ]);
  });

  test("a value the input would clamp or drop is a 400 saying what it takes, and the old value stays", async () => {
    const over = await call("POST", "/browser/interact/select", {
      selector: { label: "Volume" },
      value: "150",
    });
    expect(over.status).toBe(400);
    expect(over.body.error).toContain("max 100");
    const day = await call("POST", "/browser/interact/select", {
      selector: { label: "Day" },
      value: "31/05/2024",
    });
    expect(day.status).toBe(400);
    expect(day.body.error).toContain("YYYY-MM-DD");
    const values = await call("POST", "/browser/script", {
      script: "return [r.value, d.value, window.seen.length]",
    });
    expect(values.body.result).toEqual(["55", "2024-05-31", 8]);
    const text = await call("POST", "/browser/interact/select", { selector: { label: "Name" }, value: "x" });
    expect(text.status).toBe(400);
  });
});

describe("select on a multiple select", () => {
  test("each call adds its option to those chosen (across option groups); one chosen already is left as it is", async () => {
    await go("/toppings");
    const pick = (value: string) =>
      call("POST", "/browser/interact/select", { selector: { label: "Toppings" }, value });
    expect((await pick("Onion")).body.selected).toEqual({ label: "Onion", value: "Onion" });
    expect((await pick("Ham")).body.selected).toEqual({ label: "Ham", value: "ham" });
    expect((await pick("Pepper")).body.selected).toEqual({ label: "Pepper", value: "Pepper" });
    expect(await seen()).toEqual(["Onion+Pepper", "Onion+Pepper+ham"]);
    const read = await call("POST", "/browser/read", {});
    const box = read.body.elements.find((e: any) => e.name === "Toppings");
    expect(box).toMatchObject({ role: "listbox", selected: ["Onion", "Pepper", "Ham"] });
  });
});

describe("upload_file with files", () => {
  test("several workspace files go into one multiple input; a single input refuses them", async () => {
    putFile("a.txt", "alpha");
    putFile("b.txt", "bravo!");
    await go("/many");
    const up = await call("POST", "/browser/upload", {
      selector: { label: "Photos" },
      files: ["workspace://files/a.txt", "workspace://files/b.txt"],
    });
    expect(up.status).toBe(200);
    expect(up.body.files).toEqual(["a.txt", "b.txt"]);
    const got = await seenUntil((s) => s.length >= 2);
    expect(got.sort()).toEqual(["m:a.txt:5:alpha", "m:b.txt:6:bravo!"]);
    const one = await call("POST", "/browser/upload", {
      selector: { label: "One" },
      files: ["workspace://files/a.txt", "workspace://files/b.txt"],
    });
    expect(one.status).toBe(400);
    expect(one.body.error).toContain("multiple");
    const both = await call("POST", "/browser/upload", {
      selector: { label: "One" },
      uri: "workspace://files/a.txt",
      files: ["workspace://files/b.txt"],
    });
    expect(both.status).toBe(400);
  });
});

describe("drop", () => {
  test("workspace files and data dropped onto a zone arrive in its drop event", async () => {
    putFile("notes.txt", "dropped text");
    await go("/drop");
    const res = await call("POST", "/browser/interact/drop", {
      selector: { css: "#zone" },
      files: ["workspace://files/notes.txt"],
      data: { "text/plain": "hello zone" },
    });
    expect(res.status).toBe(200);
    const got = await seenUntil((s) => s.some((x) => x.startsWith("file:")));
    expect(got[0]).toBe("dragenter");
    expect(got[1]).toBe("dragover");
    expect(got[2]).toMatch(/^drop:false:(text\/plain,Files|Files,text\/plain)$/);
    expect(got.slice(3)).toEqual(["text:hello zone", "file:notes.txt:text/plain:dropped text"]);
  });

  test("onto an element that takes no drop, or with nothing to carry, it is a 400", async () => {
    await go("/drop");
    const plain = await call("POST", "/browser/interact/drop", {
      selector: { css: "#plain" },
      data: { "text/plain": "x" },
    });
    expect(plain.status).toBe(400);
    expect(plain.body.error).toContain("takes no drop");
    expect(await seen()).toEqual([]);
    const empty = await call("POST", "/browser/interact/drop", { selector: { css: "#zone" } });
    expect(empty.status).toBe(400);
    expect(JSON.stringify(empty.body)).toContain("files");
  });
});

describe("read_page: focus and drag handles", () => {
  test("the focused field is marked, and draggable elements are refs a drag can use", async () => {
    await go("/board");
    expect((await call("POST", "/browser/interact/focus", { selector: { label: "Search" } })).status).toBe(
      200,
    );
    const page = (await call("POST", "/browser/read", {})).body;
    const byName = new Map<string, any>(page.elements.map((e: any) => [e.name, e]));
    expect(byName.get("Search").focused).toBe(true);
    expect(byName.get("Go").focused).toBeUndefined();
    expect(byName.get("Card A")).toMatchObject({
      role: "generic",
      draggable: true,
      selector: { css: "#card" },
    });
    expect(byName.get("Row 1")).toMatchObject({ role: "listitem", draggable: true });
    expect(page.elements.some((e: any) => e.name === "Just text")).toBe(false);
    const text = (await mcp.tool("read_page", {})).content[0].text as string;
    expect(text).toMatch(/textbox "Search" \[\w+\] focused/);
    expect(text).toMatch(/generic "Card A" \[\w+\] draggable/);
    const card = byName.get("Card A").ref;
    const drag = await call("POST", "/browser/interact/drag", {
      selector: { ref: card },
      target: { css: "#lane" },
    });
    expect(drag.status).toBe(200);
    expect(await seen()).toEqual(["lane got card"]);
  });
});

describe("a match inside a frame", () => {
  test("assert and extract that match nothing here name the frame holding a match and say to switch", async () => {
    await go("/framed");
    const a = await call("POST", "/browser/assert", { selector: { text: "Pay now" }, timeout: 0.5 });
    expect(a.status).toBe(400);
    expect(a.body.error).toContain('call switch with {"frame":{"css":"#pay"}} first');
    const e = await call("POST", "/browser/extract", { selector: { css: "#deep" }, timeout: 0.5 });
    expect(e.status).toBe(400);
    expect(e.body.error).toContain(
      'call switch with {"frame":{"css":"#ads"}}, then {"frame":{"css":"#inner"}} first',
    );
    // The advice works: in the frame, the same assert holds.
    expect((await call("POST", "/browser/switch", { frame: { css: "#pay" } })).status).toBe(200);
    expect(
      (await call("POST", "/browser/assert", { selector: { text: "Pay now" }, timeout: 1 })).status,
    ).toBe(200);
    expect((await call("POST", "/browser/switch", { frame: null })).status).toBe(200);
    // With the default wait (5 s), a match in a frame ends it once the frames are asked (after 1 s).
    const early = await call("POST", "/browser/write", { selector: { text: "Pay now" }, text: "x" });
    expect(early.status).toBe(400);
    expect(early.body.error).toStartWith(
      'nothing matched {"text":"Pay now"} in this document. A match is inside a frame',
    );
    // Nothing anywhere: no frame named.
    const none = await call("POST", "/browser/assert", { selector: { text: "Refund" }, timeout: 0.5 });
    expect(none.status).toBe(400);
    expect(none.body.error).not.toContain("inside a frame");
    // A page of 80 frames holding nothing: the search is bounded, the refusal comes promptly.
    await go("/ads");
    const t0 = Date.now();
    const ads = await call("POST", "/browser/assert", { selector: { text: "Checkout" }, timeout: 0.5 });
    expect(ads.status).toBe(400);
    expect(Date.now() - t0).toBeLessThan(4_000);
  });
});
