// Playwright MCP's tab, dialog, evaluate and wait scenarios (microsoft/playwright tests/mcp tabs,
// dialogs, evaluate, wait and cli-core specs), written anew against our tools over MCP.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Peer, peer } from "../support/peer.ts";

let p: Peer;

beforeAll(async () => {
  p = await peer("peer-tabs");
  p.page("/", `<title>Title</title><body>Hello</body>`);
  p.page("/other", `<title>Other</title><body>Other page</body>`);
});
afterAll(() => p.close());

const list = async () => (await p.tool("switch", { tab: "list" })).tabs;

test("list initial tabs (tabs.spec.ts: list initial tabs)", async () => {
  await p.tool("navigate", { url: p.site.url("/") });
  expect(await list()).toEqual([{ index: 0, url: p.site.url("/"), title: "Title", current: true }]);
});

test("create new tab with url (tabs.spec.ts: create new tab, create new tab with url)", async () => {
  const opened = await p.tool("switch", { tab: "new", url: p.site.url("/other") });
  expect([opened.tab, opened.url, opened.title]).toEqual([1, p.site.url("/other"), "Other"]);
  expect(await list()).toEqual([
    { index: 0, url: p.site.url("/"), title: "Title", current: false },
    { index: 1, url: p.site.url("/other"), title: "Other", current: true },
  ]);
  expect((await p.tool("read_page")).text).toContain("Other page");
});

test("select tab (tabs.spec.ts: select tab)", async () => {
  const chosen = await p.tool("switch", { tab: 0 });
  expect([chosen.tab, chosen.title]).toEqual([0, "Title"]);
  expect((await p.tool("read_page")).text).toContain("Hello");
});

test("close tab (tabs.spec.ts: close tab)", async () => {
  await p.tool("switch", { tab: 1 });
  const closed = await p.tool("switch", { tab: "close" });
  expect([closed.tab, closed.title]).toEqual([0, "Title"]);
  expect((await list()).map((t: any) => t.title)).toEqual(["Title"]);
  expect(await p.refused("switch", { tab: "close" })).toContain("end_browser");
});

test("a window.open tab in the list, as the page opened it (tabs.spec.ts: pop-ups)", async () => {
  // Same origin, opener kept: the pop-up Chromium's BiDi does not answer until reloaded (Page.usable).
  p.page("/opens", `<title>Opens</title><button onclick="window.open('/other')">Pop</button>`);
  await p.tool("navigate", { url: p.site.url("/opens") });
  await p.tool("interact", { action: "click", selector: { ref: await p.ref("Pop") } });
  expect((await list()).map((t: any) => [t.index, t.title, t.current])).toEqual([
    [0, "Opens", true],
    [1, "Other", false],
  ]);
  expect((await p.tool("switch", { tab: 1 })).title).toBe("Other");
  expect((await p.tool("read_page")).text).toContain("Other page");
  expect((await p.tool("switch", { tab: "close" })).title).toBe("Opens");
});

test("alert dialog (dialogs.spec.ts: alert dialog)", async () => {
  p.page("/alert", `<title>Alert</title><button onclick="alert('Alert')">Button</button>`);
  await p.tool("navigate", { url: p.site.url("/alert") });
  const ref = await p.ref("Button");
  const clicked = await p.tool("interact", { action: "click", selector: { ref } });
  expect(clicked.dialog).toBe("Alert");
  // While it is open, other actions are refused and say why.
  expect(await p.refused("interact", { action: "click", selector: { ref } })).toContain("Alert");
  const done = await p.tool("dialog", { action: "accept" });
  expect(done.title).toBe("Alert");
});

test("two alert dialogs (dialogs.spec.ts: two alert dialogs)", async () => {
  p.page("/two", `<title>Two</title><button onclick="alert('Alert 1'); alert('Alert 2')">Button</button>`);
  await p.tool("navigate", { url: p.site.url("/two") });
  expect(
    (await p.tool("interact", { action: "click", selector: { ref: await p.ref("Button") } })).dialog,
  ).toBe("Alert 1");
  expect((await p.tool("dialog", { action: "accept" })).next_dialog).toBe("Alert 2");
  const last = await p.tool("dialog", { action: "accept" });
  expect([last.message, last.next_dialog, last.title]).toEqual(["Alert 2", undefined, "Two"]);
});

for (const [accept, shown] of [
  [true, "true"],
  [false, "false"],
] as const) {
  test(`confirm dialog, ${accept} (dialogs.spec.ts: confirm dialog (${accept}))`, async () => {
    p.page(
      "/confirm",
      `<title>Confirm</title><button onclick="document.body.textContent = confirm('Confirm')">Button</button>`,
    );
    await p.tool("navigate", { url: p.site.url("/confirm") });
    expect(
      (await p.tool("interact", { action: "click", selector: { ref: await p.ref("Button") } })).dialog,
    ).toBe("Confirm");
    await p.tool("dialog", { action: accept ? "accept" : "dismiss" });
    expect((await p.tool("read_page")).text.trim()).toBe(shown);
  });
}

test("prompt dialog (dialogs.spec.ts: prompt dialog)", async () => {
  p.page(
    "/prompt",
    `<title>Prompt</title><button onclick="document.body.textContent = prompt('Prompt')">Button</button>`,
  );
  await p.tool("navigate", { url: p.site.url("/prompt") });
  await p.tool("interact", { action: "click", selector: { ref: await p.ref("Button") } });
  expect((await p.tool("dialog", { action: "read" })).message).toBe("Prompt");
  await p.tool("dialog", { action: "accept", text: "Answer" });
  expect((await p.tool("read_page")).text.trim()).toBe("Answer");
});

test("browser_evaluate (evaluate.spec.ts: browser_evaluate, browser_evaluate expression)", async () => {
  await p.tool("navigate", { url: p.site.url("/") });
  expect((await p.tool("execute_script", { script: "() => document.title" })).result).toBe("Title");
  expect((await p.tool("execute_script", { script: "document.title" })).result).toBe("Title");
  expect((await p.tool("execute_script", { script: "return document.title" })).result).toBe("Title");
});

test("browser_evaluate object (evaluate.spec.ts: browser_evaluate object)", async () => {
  const got = await p.tool("execute_script", {
    script: "() => ({ message: 'Hello, world!', n: 2, list: [1, null] })",
  });
  expect(got.result).toEqual({ message: "Hello, world!", n: 2, list: [1, null] });
});

test("eval <ref>, as arguments (cli-core.spec.ts: eval <ref>; evaluate.spec.ts: browser_evaluate (element))", async () => {
  p.page("/el", `<title>El</title><button id="b" data-x="42">Go</button>`);
  await p.tool("navigate", { url: p.site.url("/el") });
  const got = await p.tool("execute_script", {
    script: "(id) => document.getElementById(id).dataset.x",
    args: ["b"],
  });
  expect(got.result).toBe("42");
  const el = await p.tool("execute_script", { script: "document.getElementById('b')" });
  expect(el.result).toContain("button#b");
});

test("browser_evaluate (error) (evaluate.spec.ts: browser_evaluate (error))", async () => {
  const text = await p.refused("execute_script", { script: "() => nonExistentVariable" });
  expect(text).toContain("nonExistentVariable is not defined");
});

test("browser_wait_for(text) (wait.spec.ts: browser_wait_for(text))", async () => {
  p.page(
    "/wait",
    `<title>Wait</title><button onclick="setTimeout(() => { document.getElementById('t').textContent = 'Text to appear'; document.getElementById('g').remove(); }, 800)">Start</button><div id="t"></div><div id="g">Text to disappear</div>`,
  );
  await p.tool("navigate", { url: p.site.url("/wait") });
  await p.tool("interact", { action: "click", selector: { ref: await p.ref("Start") } });
  const seen = await p.tool("assert", { selector: { text: "Text to appear" }, timeout: 5 });
  expect(seen.seen).toContain("1 visible");
});

test("browser_wait_for(textGone) (wait.spec.ts: browser_wait_for(textGone))", async () => {
  await p.tool("navigate", { url: p.site.url("/wait") });
  await p.tool("interact", { action: "click", selector: { ref: await p.ref("Start") } });
  await p.tool("assert", { selector: { text: "Text to disappear" }, state: "absent", timeout: 5 });
  expect((await p.tool("read_page")).text).toContain("Text to appear");
  // A condition that never holds is refused with what was seen instead.
  const never = await p.refused("assert", { selector: { text: "Never shown" }, timeout: 0.5 });
  expect(never).toContain("Never shown");
});
