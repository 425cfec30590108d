// What the outline sees that it did not (issue 44, items 1 to 7), on the real Grid, each on a page
// of test/fixtures/outline that reproduces it: click targets wired with addEventListener, every
// frame's content with refs that act without a switch, closed shadow roots, targets inside a
// pointer region, pictures and colours, text a person cannot see, and headings, repeated lines,
// pre-formatted text, long selects and texts, and reads right after a switch.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { serveOutlinePages } from "../support/outline-site.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "outline-seen";
const site = serveOutlinePages();
let server: TestServer;

const call = (path: string, body: unknown = {}) => server.call("POST", path, body, W);
const REF = expect.stringMatching(/^[a-z]{1,2}\d+$/);

async function read(path?: string, extra: Record<string, unknown> = {}) {
  const res = await call("/browser/read", path ? { url: site.url(path), ...extra } : extra);
  expect(res.status).toBe(200);
  return res.body;
}

/** A call that must answer 200 (its error said on failure). */
async function ok(path: string, body: unknown) {
  const res = await call(path, body);
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 200, error: undefined });
  return res.body;
}

const named = (page: any, name: string) => page.elements.find((e: any) => e.name === name);
const names = (page: any) => page.elements.map((e: any) => e.name);

/** The page's log lines (a fixture's #log list). */
async function logged(): Promise<string[]> {
  const got = await call("/browser/extract", { selector: { css: "#log li" }, all: true, timeout: 0 });
  return got.body.results ?? [];
}

beforeAll(async () => {
  server = await startServer({ dataDir: false });
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

describe("1. click targets wired with addEventListener", () => {
  test("divs given a click listener, under a hover-only pointer or by onclick, a drop target and icon buttons are listed; a root's listener is not a target", async () => {
    const page = await read("/listeners");
    for (const i of [0, 1, 2])
      expect(named(page, `item ${i}`)).toEqual({
        ref: REF,
        role: "clickable",
        name: `item ${i}`,
        selector: { css: `#custom-${i}` },
      });
    expect(named(page, "Only under hover")?.role).toBe("clickable");
    expect(named(page, "Set by property")?.role).toBe("clickable");
    expect(named(page, "Plain text, nothing to click")).toBeUndefined();
    expect(page.text).toContain("Plain text, nothing to click");
    expect(named(page, "Drop here")).toMatchObject({ droppable: true, selector: { css: "#target" } });
    expect(named(page, "action like")).toMatchObject({ role: "button", selector: { css: "#like" } });
    expect(named(page, "action share")).toMatchObject({ role: "button", selector: { css: "#share" } });
    expect(page.headings).toEqual([{ level: 1, text: "Listeners" }]);

    await ok("/browser/interact/click", { selector: { ref: named(page, "item 1").ref } });
    const card = named(page, "Card");
    const drop = named(page, "Drop here");
    await ok("/browser/interact/drag", { selector: { ref: card.ref }, target: { ref: drop.ref } });
    expect(await logged()).toEqual(["clicked custom-1", "dropped"]);
  }, 120_000);

  test("101 divs with listeners read promptly, each listed", async () => {
    await call("/browser/navigate", { url: site.url("/many-listeners?n=101") });
    const started = performance.now();
    const page = await read(undefined, { max_length: 50_000 });
    expect(performance.now() - started).toBeLessThan(3_000);
    const items = page.elements.filter((e: any) => /^item \d+$/.test(e.name));
    expect(items).toHaveLength(101);
    expect(items.every((e: any) => e.role === "clickable")).toBe(true);
  }, 120_000);
});

describe("2. every frame's content in one outline", () => {
  test("a cross-origin frame, and one inside it, are read where they stand; their refs act without a switch", async () => {
    const page = await read("/frames-top");
    expect(page.frames).toEqual([
      {
        ref: REF,
        selector: { css: "#card" },
        url: `http://pay.example.test:${site.port}/card`,
        readable: true,
      },
      { ref: REF, url: `http://pay.example.test:${site.port}/card-inner`, readable: true },
    ]);
    expect(page.text).toMatch(
      /Main Button[\s\S]*Card details[\s\S]*Card number[\s\S]*Deep button[\s\S]*After the frame/,
    );
    const number = named(page, "Card number");
    expect(number).toEqual({
      ref: REF,
      role: "textbox",
      name: "Card number",
      selector: { css: "#number" },
      frame: [{ css: "#card" }],
    });
    expect(named(page, "Deep button")).toMatchObject({ frame: [{ css: "#card" }, { css: "#inner" }] });
    expect(named(page, "Terms of the card")).toMatchObject({ role: "link", href: "/terms" });

    // No switch: write, click and click again two frames deep, by refs alone.
    await ok("/browser/write", { selector: { ref: number.ref }, text: "4242" });
    await ok("/browser/interact/click", { selector: { ref: named(page, "Pay").ref } });
    await ok("/browser/interact/click", { selector: { ref: named(page, "Deep button").ref } });
    const after = await read();
    expect(after.text).toContain("Paid with 4242");
    expect(names(after)).toContain("Deep clicked");
    // The agent never left the top document.
    expect((await call("/browser/extract", { selector: { css: "#main-button" } })).body.result).toBe(
      "Main Button",
    );
  }, 120_000);

  test("a frame longer than a part comes in parts whose cursors go into the frame and back out", async () => {
    let page = await read("/frames-long", { max_length: 2000 });
    let text = page.text;
    const agree: string[] = [];
    for (let i = 0; i < 40 && page.next_cursor; i++) {
      for (const e of page.elements) if (/^Agree/.test(e.name)) agree.push(e.ref);
      page = await read(undefined, { cursor: page.next_cursor });
      text += `\n${page.text}`;
    }
    for (const e of page.elements) if (/^Agree/.test(e.name)) agree.push(e.ref);
    expect(page.next_cursor).toBeUndefined();
    const clauses = text.match(/Clause \d+/g) ?? [];
    expect(clauses).toEqual(Array.from({ length: 300 }, (_, i) => `Clause ${i + 1}`));
    expect(text.indexOf("Before the terms frame")).toBeLessThan(text.indexOf("Clause 1 "));
    expect(text.indexOf("After the terms frame")).toBeGreaterThan(text.indexOf("Clause 300"));
    expect(agree).toHaveLength(6);
    await ok("/browser/interact/click", { selector: { ref: agree[5] } });
  }, 120_000);
});

describe("3. closed shadow roots", () => {
  test("open, then closed, then a frame inside it: all three buttons are listed and clicked by ref", async () => {
    const page = await read("/closed-shadow");
    expect(page.text).toContain("Inside the closed root");
    // A text selector finds what is inside the closed root too.
    const inside = await call("/browser/extract", { selector: { text: "Inside the closed root" } });
    expect(inside.body).toMatchObject({ count: 1, result: "Inside the closed root" });
    for (const [name, done] of [
      ["Open button", "Open clicked"],
      ["Closed button", "Closed clicked"],
      ["Frame button", "Frame clicked"],
    ]) {
      const el = named(page, name as string);
      // (toMatchObject with a matcher writes the matcher over the field it matched: the ref is taken first.)
      const ref = el?.ref;
      expect(el).toMatchObject({ ref: REF, role: "button" });
      await ok("/browser/interact/click", { selector: { ref } });
      expect(names(await read())).toContain(done);
    }
  }, 120_000);
});

describe("4. targets inside a pointer region", () => {
  test("a mail's Reply and Forward, a menu's entries and an open folder's files get refs of their own", async () => {
    const page = await read("/regions");
    expect(named(page, "Alice Lunch on Friday?")).toMatchObject({
      role: "clickable",
      selector: { css: "#mail-1" },
    });
    for (const n of [
      "Reply",
      "Forward",
      "New file",
      "Open file",
      "Save file",
      "Documents",
      "notes.txt",
      "plan.txt",
    ])
      expect(named(page, n)?.ref).toEqual(REF);
    expect(page.elements.some((e: any) => e.name?.includes("New file Open file"))).toBe(false);
    await call("/browser/interact/click", { selector: { ref: named(page, "Reply").ref } });
    await call("/browser/interact/click", { selector: { ref: named(page, "Open file").ref } });
    expect(await logged()).toEqual(["mail reply", "menu Open file"]);
  }, 120_000);

  test("a spinner's arrows are told apart; an editor's bold, italic and underline are named", async () => {
    const page = await read("/regions");
    const arrows = page.elements.filter((e: any) => /spinner/.test(e.name ?? ""));
    expect(arrows.map((e: any) => e.name)).toEqual(["spinner up", "spinner down"]);
    expect(names(page)).not.toContain("only");
    for (const n of ["bold", "italic", "underline"]) expect(named(page, n)?.role).toBe("button");
    await call("/browser/interact/click", { selector: { ref: arrows[0].ref } });
    expect((await call("/browser/extract", { selector: { css: "#qty" }, get: "value" })).body.result).toBe(
      "2",
    );
  }, 120_000);
});

describe("5. pictures, drawings and colours", () => {
  test("an img by its alt or its file, an SVG's shapes with colour and place, swatches by colour", async () => {
    const page = await read("/pictures");
    expect(named(page, "A grey cat")).toMatchObject({ role: "img", ref: REF });
    expect(page.elements.find((e: any) => e.role === "img" && e.href)).toMatchObject({
      href: "/pic/chart-2024.png",
    });
    expect(page.elements.filter((e: any) => e.role === "img")).toHaveLength(3);
    expect(named(page, "Shapes")).toMatchObject({ role: "img", selector: { css: "#drawing" } });
    const shapes = page.elements.filter((e: any) => ["rect", "circle", "path", "text"].includes(e.role));
    expect(shapes.map((e: any) => [e.role, e.color, e.at])).toEqual([
      ["rect", "red", "10,10,60x60"],
      ["circle", "#1e90ff(blue)", "120,10,60x60"],
      ["path", "green", "220,10,60x60"],
      ["text", "black", expect.stringMatching(/^10,\d+,\d+x\d+$/)],
    ]);
    expect(named(page, "Score: 42")?.role).toBe("text");
    const swatches = page.elements.filter((e: any) => e.selector?.css?.startsWith("#sw-"));
    expect(swatches.map((e: any) => e.color)).toEqual(["red", "blue", "#2e7d32(green)"]);
    expect(page.elements.some((e: any) => e.selector?.css === "#bar")).toBe(false);
    await call("/browser/interact/click", { selector: { ref: swatches[1].ref } });
    expect((await call("/browser/extract", { selector: { css: "#picked" } })).body.result).toBe(
      "Picked sw-blue",
    );
  }, 120_000);
});

describe("6. what a person cannot see", () => {
  test("opacity 0, a font size of 0 and what an opaque box paints over are left out; glass is not a cover", async () => {
    const page = await read("/hidden");
    expect(page.text).toContain("Visible words stay.");
    expect(page.text).toContain("Words under glass stay.");
    expect(page.text).toContain("Inline blocks keep their own size.");
    for (const gone of ["Ignore previous", "tiny secret", "painted over", "Faded button", "Covered button"])
      expect(JSON.stringify(page)).not.toContain(gone);
    expect(names(page)).toEqual(["Name"]);
  }, 120_000);

  test("write refuses a field painted over, and types into one that is not", async () => {
    await call("/browser/navigate", { url: site.url("/hidden") });
    const covered = await call("/browser/write", { selector: { css: "#code" }, text: "1234" });
    expect(covered.status).toBe(400);
    expect(covered.body.error).toBe('{"css":"#code"} is covered by <div#veil>: it cannot be typed into');
    expect((await call("/browser/extract", { selector: { css: "#code" }, get: "value" })).body.result).toBe(
      "",
    );
    await ok("/browser/write", { selector: { css: "#name" }, text: "Ada" });
  }, 120_000);
});

describe("7. headings, repeated lines, pre-formatted text, long selects and texts, reads after a switch", () => {
  test("a heading with a dblclick handler stays a heading; equal lines of a grid are all kept", async () => {
    const page = await read("/lines");
    expect(page.headings).toEqual([
      { level: 1, text: "Double-click to rename" },
      { level: 2, text: "Board" },
    ]);
    expect(page.text).toContain("X O X\nX O X\nX O X");
    const title = named(page, "Double-click to rename");
    expect((await call("/browser/interact/click", { selector: { ref: title.ref }, count: 2 })).status).toBe(
      200,
    );
    expect((await read()).headings[0]).toEqual({ level: 1, text: "Renamed" });
  }, 120_000);

  test("extract keeps pre-formatted text's blank lines and indentation, and reads on past 100,000 characters", async () => {
    await call("/browser/navigate", { url: site.url("/lines") });
    const code = await call("/browser/extract", { selector: { css: "#code" } });
    expect(code.body.result).toBe(
      'def greet(name):\n    if name:\n        print("hello", name)\n\n    return None',
    );
    const first = await call("/browser/extract", { selector: { css: "#long" } });
    expect(first.body.result).toHaveLength(100_000);
    expect(first.body.truncated).toBe(true);
    const rest = await call("/browser/extract", { selector: { css: "#long" }, offset: 100_000 });
    expect(rest.body.truncated).toBeUndefined();
    expect(first.body.result + rest.body.result).toEndWith(" THE-END");
    expect((first.body.result + rest.body.result).split(" ")).toHaveLength(15_001);
  }, 120_000);

  test("a select's options past 25 are read with its ref as selector", async () => {
    const page = await read("/lines");
    const select = named(page, "Item");
    expect(select.options).toHaveLength(26);
    expect(select.options[25]).toBe("… 15 more (read_page with its ref as selector)");
    const all = await read(undefined, { selector: { ref: select.ref } });
    expect(all.text.split("\n")).toEqual(Array.from({ length: 40 }, (_, i) => `- Option ${i + 1}`));
  }, 120_000);

  test("read_page right after a switch into a new tab, or into a frame, reads the page that is coming", async () => {
    await call("/browser/navigate", { url: site.url("/opener") });
    await ok("/browser/interact/click", { selector: { css: "#open" } });
    await ok("/browser/switch", { tab: 1 });
    const tab = await read();
    expect(tab.text).toContain("It took a while to come.");
    expect(names(tab)).toContain("Ready button");
    await call("/browser/switch", { tab: "close" });
    await ok("/browser/interact/click", { selector: { css: "#load-late" } });
    await ok("/browser/switch", { frame: { css: "#late" } });
    const frame = await read();
    expect(frame.text).toContain("It took a while to come.");
    await call("/browser/switch", { frame: null });
  }, 120_000);
});
