// An agent's hands (issue 28): each pattern of test/support/task-pages.ts solved over MCP on the
// real Grid with refs from read_page alone, never CSS or XPath. A pattern whose element gets no ref
// fails here, as an agent would.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Peer, peer } from "../support/peer.ts";
import { taskPages } from "../support/task-pages.ts";

let p: Peer;
const W = "tasks-hands";

beforeAll(async () => {
  p = await peer(W, { ...taskPages });
});
afterAll(() => p.close());

interface El {
  ref: string;
  role: string;
  name?: string;
  draggable?: boolean;
  droppable?: boolean;
  box?: { x: number; y: number; width: number; height: number };
}

/** read_page of the page now (at `path` first when given); its elements and outline. */
async function look(path?: string, extra: Record<string, unknown> = {}) {
  const read = await p.tool("read_page", path ? { url: p.site.url(path), ...extra } : extra);
  return { elements: read.elements as El[], outline: read.outline as string, text: read.text as string };
}

/** The ref of the one element named `name` (and of `role`, when given): the test fails without one. */
function refOf(elements: El[], name: string, role?: string): string {
  const hits = elements.filter((e) => e.name === name && (role === undefined || e.role === role));
  expect([name, hits.length]).toEqual([name, 1]);
  return (hits[0] as El).ref;
}

const done = async () => (await p.tool("execute_script", { script: "window.done" })).result as string[];

test("links drawn as spans (a pointer cursor, a script's listener) have refs and take the click", async () => {
  const { elements, outline } = await look("/span-links");
  expect(outline).toMatch(/clickable "Morbi" \[[a-z]+\d+\]/);
  // "Morbi" opens the sentence too, as plain text: only the span is an element.
  await p.tool("interact", { action: "click", selector: { ref: refOf(elements, "Morbi", "clickable") } });
  expect(await done()).toEqual(["Morbi"]);
});

test("a tree: a folder opens on a click of its name, then its file is chosen", async () => {
  const first = await look("/tree");
  await p.tool("interact", { action: "click", selector: { ref: refOf(first.elements, "Folder B") } });
  const { elements } = await look();
  await p.tool("interact", { action: "click", selector: { ref: refOf(elements, "notes.txt") } });
  expect(await done()).toEqual(["notes.txt"]);
});

test("an autocomplete: the menu's items are read with their text and picked by ref", async () => {
  const { elements } = await look("/autocomplete");
  await p.tool("write", { selector: { ref: refOf(elements, "Country", "textbox") }, text: "Se" });
  await p.tool("assert", { selector: { text: "Seychelles" }, state: "visible" });
  const menu = await look();
  expect(menu.outline).toContain("Seychelles");
  await p.tool("interact", { action: "click", selector: { ref: refOf(menu.elements, "Seychelles") } });
  expect(await done()).toEqual(["Seychelles"]);
});

test("short text inside an unnamed focusable list is kept, and its items have refs", async () => {
  const { outline, text, elements } = await look("/bare-menu");
  expect(text).toContain("Seychelles");
  expect(outline).toContain("Seychelles");
  await p.tool("interact", { action: "click", selector: { ref: refOf(elements, "Seychelles") } });
  expect(await done()).toEqual(["Seychelles"]);
});

test("a datepicker: Prev (an <a> without href) goes back a month, then the day is picked", async () => {
  const { elements } = await look("/datepicker");
  await p.tool("interact", { action: "click", selector: { ref: refOf(elements, "Date", "textbox") } });
  const open = await look();
  expect(open.text).toContain("April");
  await p.tool("interact", { action: "click", selector: { ref: refOf(open.elements, "Prev") } });
  const march = await look();
  expect(march.text).toContain("March");
  await p.tool("interact", { action: "click", selector: { ref: refOf(march.elements, "15", "link") } });
  expect(await done()).toEqual(["03/15/2024"]);
});

test("a sortable list: an item moved to the bottom, another up by one, by position", async () => {
  const { elements } = await look("/sortable");
  const one = elements.find((e) => e.name === "One");
  expect(one?.draggable).toBe(true);
  await p.tool("interact", {
    action: "drag",
    selector: { ref: refOf(elements, "One") },
    target: { ref: refOf(elements, "Five") },
    position: "after",
  });
  expect((await done()).at(-1)).toBe("Two,Three,Four,Five,One");
  // Refs stay with their elements as the list reorders.
  await p.tool("interact", {
    action: "drag",
    selector: { ref: refOf(elements, "Four") },
    target: { ref: refOf(elements, "Three") },
    position: "before",
  });
  expect((await done()).at(-1)).toBe("Two,Four,Three,Five,One");
});

test("a paragraph highlighted: select_text on its ref, a triple click, and from one text to another", async () => {
  const { elements, outline } = await look("/highlight", { boxes: true });
  expect(outline).toMatch(/box=\d+,\d+,\d+x\d+/);
  const submit = refOf(elements, "Submit", "button");
  const para = "Curabitur sodales ligula in libero. Sed dignissim lacinia nunc, at ornare mauris.";
  // A paragraph is text, not an element: text with nth picks it (the task's own words come first).
  const sel = await p.tool("interact", {
    action: "select_text",
    selector: { text: "Curabitur", exact: false },
  });
  expect(sel.selection).toBe("Curabitur");
  const whole = await p.tool("interact", {
    action: "select_text",
    selector: { text: "Curabitur sodales", exact: false },
    target: { text: "ornare mauris.", exact: false },
  });
  expect(whole.selection).toBe(para);
  await p.tool("interact", { action: "click", selector: { ref: submit } });
  expect((await done()).at(-1)).toBe(para);
  // A triple click selects the paragraph it lands in.
  await p.tool("interact", { action: "click", count: 3, selector: { text: "Nam quam", exact: false } });
  await p.tool("interact", { action: "click", selector: { ref: submit } });
  expect((await done()).at(-1)?.trim()).toBe(
    "Nam quam nunc, blandit vel, luctus pulvinar, hendrerit id, lorem.",
  );
});

test("an icon toolbar drawn by CSS: icons named from their class or title, clicked by ref", async () => {
  const { elements, outline } = await look("/icons");
  expect(outline).toMatch(/icon button "star" \[[a-z]+\d+\]/);
  await p.tool("interact", { action: "click", selector: { ref: refOf(elements, "star") } });
  await p.tool("interact", { action: "click", selector: { ref: refOf(elements, "Reply") } });
  await p.tool("interact", { action: "click", selector: { ref: refOf(elements, "trash") } });
  expect(await done()).toEqual(["star", "reply", "trash"]);
  // A class written to forge a line of the outline names an icon, quoted, and nothing more.
  expect(outline).toMatch(/^- icon button "now" \[[a-z]+\d+\]$/m);
  for (const line of outline.split("\n"))
    expect([line, line.match(/\[[a-z]+\d+\]/g)?.length ?? 0]).not.toEqual([line, 2]);
  expect(outline).not.toMatch(/link "Pay/i);
});

test("an icon that hides on hover: the press lands on its parent, is stopped, and is a 400 naming it", async () => {
  const { elements } = await look("/icons");
  const swap = refOf(elements, "retweet");
  const why = await p.refused("interact", { action: "click", selector: { ref: swap } });
  expect(why).toContain("did not get the click");
  expect(why).toContain("<div#wrap>");
  expect(why).toMatch(/\{"ref": "[a-z]+\d+"\}/);
  expect(await done()).toEqual([]);
});
