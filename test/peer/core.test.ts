// Playwright MCP's core scenarios (microsoft/playwright tests/mcp core, click, type, cli-core,
// cli-keyboard, cli-navigation specs), written anew against our tools over MCP on the real Grid.
// Each test is titled after the upstream test it mirrors; docs/peer-suite.md maps them all.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Peer, peer } from "../support/peer.ts";

let p: Peer;
/** The page's own record of what happened to it, read through the DOM (no console tool yet). */
const log = async () => (await p.tool("execute_script", { script: "window.log ?? []" })).result;
const LOGGER = `<script>window.log = []; const note = (e) => log.push(e.type + (e.key ? ":" + e.key : ""));</script>`;

beforeAll(async () => {
  p = await peer("peer-core");
});
afterAll(() => p.close());

test("browser_navigate (core.spec.ts: browser_navigate)", async () => {
  p.page("/", `<title>Title</title><body>Hello, world!</body>`);
  const nav = await p.tool("navigate", { url: p.site.url("/") });
  expect([nav.url, nav.title]).toEqual([p.site.url("/"), "Title"]);
  expect((await p.tool("read_page")).text).toContain("Hello, world!");
});

test("about: and data: urls (core.spec.ts: browser_navigate allows about:, data: and javascript: protocols)", async () => {
  const data = await p.tool("navigate", { url: "data:text/html,<title>Data</title><p>from data</p>" });
  expect(data.title).toBe("Data");
  expect((await p.tool("read_page")).text).toContain("from data");
  expect((await p.tool("navigate", { url: "about:blank" })).url).toBe("about:blank");
});

test("snapshot (cli-core.spec.ts: snapshot)", async () => {
  p.page("/snap", `<title>Snap</title><h1>Heading</h1><button>Submit</button><a href="/x">Link</a>`);
  const read = await p.tool("read_page", { url: p.site.url("/snap") });
  expect(read.outline).toMatch(/- button "Submit" \[[a-z]+\d+\]/);
  expect(read.outline).toMatch(/- link "Link" \[[a-z]+\d+\] \/x/);
  expect(read.headings).toEqual([expect.objectContaining({ level: 1, text: "Heading" })]);
});

test("snapshot by ref (core.spec.ts: snapshot by ref)", async () => {
  p.page(
    "/part",
    `<title>Part</title><nav><a href="/a">Outside</a></nav><main><button>Inside</button></main>`,
  );
  const read = await p.tool("read_page", { url: p.site.url("/part") });
  const main = read.landmarks.find((l: any) => l.role === "main");
  const part = await p.tool("read_page", { selector: { ref: main.ref } });
  expect(part.elements.map((e: any) => e.name)).toEqual(["Inside"]);
});

test("hidden parent, visible child (core.spec.ts: visibility: hidden > visible should be shown)", async () => {
  p.page(
    "/vis",
    `<title>Vis</title><div style="visibility:hidden"><div style="visibility:visible"><button>Button</button></div></div>`,
  );
  const read = await p.tool("read_page", { url: p.site.url("/vis") });
  expect(read.elements.map((e: any) => e.name)).toEqual(["Button"]);
});

test("browser_click (click.spec.ts: browser_click)", async () => {
  p.page(
    "/click",
    `<title>Click</title>${LOGGER}<button onclick="note(event)" ondblclick="note(event)" oncontextmenu="note(event)">Submit</button>`,
  );
  await p.tool("navigate", { url: p.site.url("/click") });
  const ref = await p.ref("Submit");
  const clicked = await p.tool("interact", { action: "click", selector: { ref } });
  expect(clicked.title).toBe("Click");
  await p.tool("interact", { action: "double_click", selector: { ref } });
  await p.tool("interact", { action: "right_click", selector: { ref } });
  // A double click is two clicks and a dblclick, as a person's is.
  expect(await log()).toEqual(["click", "click", "click", "dblclick", "contextmenu"]);
});

test("click link (cli-core.spec.ts: click link)", async () => {
  p.page("/from", `<title>From</title><a href="/to">Go</a>`);
  p.page("/to", `<title>To</title>`);
  await p.tool("navigate", { url: p.site.url("/from") });
  const went = await p.tool("interact", { action: "click", selector: { ref: await p.ref("Go") } });
  expect([went.url, went.title]).toEqual([p.site.url("/to"), "To"]);
});

test("click button with CSS selector and with role (cli-core.spec.ts: click button with CSS selector, with role locator)", async () => {
  p.page("/sel", `<title>Sel</title>${LOGGER}<button id="b" onclick="log.push('b')">Submit</button>`);
  await p.tool("navigate", { url: p.site.url("/sel") });
  await p.tool("interact", { action: "click", selector: { css: "#b" } });
  await p.tool("interact", { action: "click", selector: { role: "button", name: "Submit" } });
  expect(await log()).toEqual(["b", "b"]);
  const wrong = await p.refused("interact", { action: "click", selector: { css: "#nope" }, timeout: 0.5 });
  expect(wrong).toContain("#nope");
});

test("browser_type (type.spec.ts: browser_type)", async () => {
  p.page(
    "/type",
    `<title>Type</title>${LOGGER}<input aria-label="Box" onkeydown="note(event); if (event.key === 'Enter') log.push('value:' + this.value)">`,
  );
  await p.tool("navigate", { url: p.site.url("/type") });
  await p.tool("write", { selector: { ref: await p.ref("Box") }, text: "Hi!", submit: true });
  expect((await log()).slice(-2)).toEqual(["keydown:Enter", "value:Hi!"]);
});

test("browser_type, no submit (type.spec.ts: browser_type (no submit))", async () => {
  await p.tool("navigate", { url: p.site.url("/type") });
  await p.tool("write", { selector: { label: "Box" }, text: "Hi!" });
  expect(await log()).not.toContain("keydown:Enter");
  const box = (await p.tool("read_page")).elements.find((e: any) => e.name === "Box");
  expect(box.value).toBe("Hi!");
});

test("browser_select_option (core.spec.ts: browser_select_option)", async () => {
  p.page(
    "/select",
    `<title>Select</title><select aria-label="Fruit"><option value="foo">Foo</option><option value="bar">Bar</option></select>`,
  );
  await p.tool("navigate", { url: p.site.url("/select") });
  const picked = await p.tool("interact", {
    action: "select",
    selector: { ref: await p.ref("Fruit") },
    value: "bar",
  });
  expect(picked.selected).toMatchObject({ label: "Bar", value: "bar" });
  expect((await p.tool("read_page")).elements[0].selected).toBe("Bar");
});

test("hover (cli-core.spec.ts: hover)", async () => {
  p.page(
    "/hover",
    `<title>Hover</title>${LOGGER}<button onmouseover="note(event)" onmouseenter="note(event)">Hover me</button>`,
  );
  await p.tool("navigate", { url: p.site.url("/hover") });
  await p.tool("interact", { action: "hover", selector: { ref: await p.ref("Hover me") } });
  expect(await log()).toEqual(["mouseover", "mouseenter"]);
});

test("check and uncheck (cli-core.spec.ts: check, uncheck)", async () => {
  p.page("/check", `<title>Check</title><label><input type="checkbox"> Agree</label>`);
  await p.tool("navigate", { url: p.site.url("/check") });
  const ref = await p.ref("Agree");
  expect((await p.tool("interact", { action: "check", selector: { ref } })).checked).toBe(true);
  expect((await p.tool("interact", { action: "uncheck", selector: { ref } })).checked).toBe(false);
});

test("press (cli-keyboard.spec.ts: press)", async () => {
  p.page("/press", `<title>Press</title><input aria-label="Field">`);
  await p.tool("navigate", { url: p.site.url("/press") });
  await p.tool("interact", { action: "click", selector: { ref: await p.ref("Field") } });
  await p.tool("interact", { action: "press", keys: "h" });
  expect((await p.tool("read_page")).elements[0].value).toBe("h");
});

test("click in iframe (cli-core.spec.ts: click in iframe; iframes.spec.ts: stitched aria frames)", async () => {
  p.page(
    "/inner",
    `<title>Inner</title><script>window.log = []</script><button onclick="log.push('inner')">Inside</button>`,
  );
  p.page("/outer", `<title>Outer</title><p>Outer text</p><iframe id="f" src="/inner"></iframe>`);
  const read = await p.tool("read_page", { url: p.site.url("/outer") });
  // The frame's content is read under its frame line; its refs work once inside it.
  expect(read.frames).toEqual([expect.objectContaining({ url: p.site.url("/inner"), readable: true })]);
  expect(read.outline).toContain("Inside");
  const inFrame = await p.tool("switch", { frame: { ref: read.frames[0].ref } });
  expect(inFrame.in_frame).toBe(true);
  await p.tool("interact", { action: "click", selector: { ref: await p.ref("Inside") } });
  expect(await log()).toEqual(["inner"]);
  expect((await p.tool("switch", { frame: null })).in_frame).toBe(false);
});

test("go-back and go-forward (cli-navigation.spec.ts: go-back, go-forward)", async () => {
  p.page("/one", `<title>One</title>`);
  p.page("/two", `<title>Two</title>`);
  await p.tool("navigate", { url: p.site.url("/one") });
  await p.tool("navigate", { url: p.site.url("/two") });
  const back = await p.tool("navigate", { back: true });
  expect([back.url, back.title]).toEqual([p.site.url("/one"), "One"]);
  const forward = await p.tool("navigate", { forward: true });
  expect([forward.url, forward.title]).toEqual([p.site.url("/two"), "Two"]);
});

test("preserves URL with & query params (cli-core.spec.ts: preserves URL with & query params)", async () => {
  p.page("/q", `<title>Q</title>`);
  const url = p.site.url("/q?a=1&b=2&c=x%20y");
  expect((await p.tool("navigate", { url })).url).toBe(url);
});
