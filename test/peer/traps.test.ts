// The traps of real pages, each its own test on the real Grid over MCP: an open shadow root, a
// single-page app's pushState and hash navigations, a redirect chain, HTTP authentication, an overlay over the target,
// a button deep in a scrolled container, a contenteditable editor, and pages too big for one read
// (a 50,000-node page and saved copies of real sites in test/fixtures/pages) read in parts, each
// within its token budget.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { html } from "../support/fixtures.ts";
import { type Peer, peer } from "../support/peer.ts";

// The real-world pages nobody here wrote (copied from shared/pages, so a plain clone has them).
const PAGES = join(import.meta.dir, "..", "fixtures", "pages");

let p: Peer;
const log = async () => (await p.tool("execute_script", { script: "window.log" })).result;
/** One read_page part: the default max_length of outline characters. */
const PART_CHARS = 6000;
/** What one part may cost a model in o200k tokens: 6000 characters at the densest (numbers, refs) 2 a token. */
const PART_TOKENS = 3000;

/** A part keeps to both budgets; its token count. */
function withinBudget(part: any): number {
  // The header above it (url, title, viewport, in_flight), and the pager's "(N more lines…: read_page {cursor})" below.
  const outline = part.outline
    .replace(/^url: .*\ntitle: .*\n(viewport: .*\n)?(in_flight: .*\n)?/, "")
    .replace(/\n\(\d+ more lines.*\)$/, "");
  expect(outline.length).toBeLessThanOrEqual(PART_CHARS);
  const tokens = countTokens(part.outline);
  expect(tokens).toBeLessThanOrEqual(PART_TOKENS);
  return tokens;
}

const redirect = (to: string, status: number) => () =>
  new Response(null, { status, headers: { location: to } });

beforeAll(async () => {
  p = await peer("peer-traps", {
    "/r1": redirect("/r2", 302),
    "/r2": redirect("/r3", 301),
    "/r3": redirect("/r4", 307),
    "/r4": redirect("/final?via=http", 303),
    "/final": () => html(`<title>Final</title><p>At the end</p>`),
  });
});
afterAll(() => p.close());

test("shadow DOM: an open root's content is read, and a click inside it lands", async () => {
  p.page(
    "/shadow",
    `<title>Shadow</title><script>window.log = []</script><x-card></x-card><script>
      const outer = document.querySelector("x-card").attachShadow({ mode: "open" });
      outer.innerHTML = '<p>Shadow text</p><x-inner></x-inner>';
      const inner = outer.querySelector("x-inner").attachShadow({ mode: "open" });
      inner.innerHTML = '<button>Deep button</button>';
      inner.querySelector("button").onclick = () => log.push("deep");
    </script>`,
  );
  const read = await p.tool("read_page", { url: p.site.url("/shadow") });
  expect(read.text).toContain("Shadow text");
  const button = read.elements.find((e: any) => e.name === "Deep button");
  expect(button).toMatchObject({ role: "button" });
  await p.tool("interact", { action: "click", selector: { ref: button.ref } });
  await p.tool("interact", { action: "click", selector: button.selector });
  expect(await log()).toEqual(["deep", "deep"]);
});

test("single-page app: pushState and hash navigations report the url, and back walks them", async () => {
  p.page(
    "/spa",
    `<title>App</title><nav><a href="/spa/inbox" onclick="event.preventDefault(); go('/spa/inbox')">Inbox</a>
      <a href="#details">Details</a></nav><main id="view">Home view</main><h2 id="details">Details</h2><script>
      function render() { document.getElementById("view").textContent = location.pathname === "/spa" ? "Home view" : "Inbox view"; }
      function go(path) { history.pushState({}, "", path); render(); }
      addEventListener("popstate", render);
    </script>`,
  );
  await p.tool("navigate", { url: p.site.url("/spa") });
  const pushed = await p.tool("interact", { action: "click", selector: { ref: await p.ref("Inbox") } });
  expect(pushed.url).toBe(p.site.url("/spa/inbox"));
  expect((await p.tool("read_page")).text).toContain("Inbox view");
  const hashed = await p.tool("interact", { action: "click", selector: { ref: await p.ref("Details") } });
  expect(hashed.url).toBe(p.site.url("/spa/inbox#details"));

  expect((await p.tool("navigate", { back: true })).url).toBe(p.site.url("/spa/inbox"));
  const home = await p.tool("navigate", { back: true });
  expect([home.url, home.title]).toEqual([p.site.url("/spa"), "App"]);
  expect((await p.tool("read_page")).text).toContain("Home view");
  expect((await p.tool("navigate", { forward: true })).url).toBe(p.site.url("/spa/inbox"));
  expect((await p.tool("read_page")).text).toContain("Inbox view");
});

test("a redirect chain (302, 301, 307, 303): the url is the final one", async () => {
  const nav = await p.tool("navigate", { url: p.site.url("/r1") });
  expect([nav.url, nav.title]).toEqual([p.site.url("/final?via=http"), "Final"]);
  expect((await p.tool("read_page")).text).toContain("At the end");
});

test("a script's location.replace while the page loads: navigate follows it to the final page", async () => {
  p.page("/js-redirect", `<title>Leaving</title><script>location.replace("/final?via=script")</script>`);
  const nav = await p.tool("navigate", { url: p.site.url("/js-redirect") });
  expect([nav.url, nav.title]).toEqual([p.site.url("/final?via=script"), "Final"]);
  expect((await p.tool("read_page")).text).toContain("At the end");
});

test("a site that asks for HTTP authentication: navigate says so, and a url with the user name and password signs in", async () => {
  p.routes["/basic"] = (req: Request) =>
    req.headers.get("authorization") === `Basic ${btoa("ada:Summer2024")}`
      ? html(`<title>Members</title><p>Welcome back`)
      : new Response("who are you?", {
          status: 401,
          headers: { "www-authenticate": 'Basic realm="members"' },
        });
  const refused = await p.refused("navigate", { url: p.site.url("/basic") });
  expect(refused).toContain("the site asks for HTTP authentication");
  const url = p.site.url("/basic").replace("http://", "http://ada:Summer2024@");
  const nav = await p.tool("navigate", { url });
  expect([nav.url, nav.title]).toEqual([p.site.url("/basic"), "Members"]);
});

test("an overlay over the target: the click is refused and the error names the cover", async () => {
  p.page(
    "/overlay",
    `<title>Overlay</title><script>window.log = []</script><button id="buy" onclick="log.push('buy')">Buy</button>
      <div id="consent" class="cookie-wall" style="position:fixed;inset:0;background:rgba(0,0,0,.5)">We use cookies</div>`,
  );
  await p.tool("navigate", { url: p.site.url("/overlay") });
  const error = await p.refused("interact", { action: "click", selector: { css: "#buy" }, timeout: 0.5 });
  expect(error).toContain('is covered by <div#consent.cookie-wall> "We use cookies" ({"css":"#consent"})');
  expect(await log()).toEqual([]);
  // Once the cover is gone, the same click lands.
  await p.tool("execute_script", { script: "document.getElementById('consent').remove()" });
  await p.tool("interact", { action: "click", selector: { css: "#buy" } });
  expect(await log()).toEqual(["buy"]);
});

test("a button deep in a scrolled container is scrolled to and clicked", async () => {
  p.page(
    "/scroller",
    `<title>Scroller</title><script>window.log = []</script><div id="list" style="height:120px;overflow:auto;margin-top:1500px">
      <div style="height:3000px">Rows</div><button onclick="log.push('far')">Far button</button></div>`,
  );
  await p.tool("navigate", { url: p.site.url("/scroller") });
  await p.tool("interact", { action: "click", selector: { ref: await p.ref("Far button") } });
  expect(await log()).toEqual(["far"]);
  expect(
    (await p.tool("execute_script", { script: "document.getElementById('list').scrollTop" })).result,
  ).toBeGreaterThan(2000);
});

test("contenteditable: write empties the editor and types, as into a field", async () => {
  p.page(
    "/editor",
    `<title>Editor</title><div id="ed" contenteditable="true" role="textbox" aria-label="Message"><p>Old draft</p></div>`,
  );
  await p.tool("navigate", { url: p.site.url("/editor") });
  await p.tool("write", { selector: { ref: await p.ref("Message") }, text: "Hello there" });
  const text = async () =>
    (await p.tool("execute_script", { script: "document.getElementById('ed').innerText.trim()" })).result;
  expect(await text()).toBe("Hello there");
  await p.tool("write", { selector: { label: "Message" }, text: ", again", clear: false });
  expect(await text()).toBe("Hello there, again");
});

/** Reads the whole page part by part; each part's MCP text within budget; all parts' text joined. */
async function readAll(
  url: string,
  maxParts: number,
): Promise<{ parts: number; text: string; title: string; tokens: number[] }> {
  let part = await p.tool("read_page", { url });
  const title = part.title;
  const texts = [part.text];
  const tokens = [withinBudget(part)];
  while (part.next_cursor && texts.length < maxParts) {
    part = await p.tool("read_page", { cursor: part.next_cursor });
    texts.push(part.text);
    tokens.push(withinBudget(part));
  }
  return { parts: texts.length, text: texts.join("\n"), title, tokens };
}

test("a 50,000-node page is read in parts, each within its token budget", async () => {
  const rows = Array.from(
    { length: 12_500 },
    (_, i) => `<li><a href="/item/${i}">Item ${i}</a> <span>note ${i}</span></li>`,
  );
  p.page("/huge", `<title>Huge</title><h1>Catalogue</h1><ul>${rows.join("")}</ul><footer>Last line</footer>`);
  const started = performance.now();
  const first = await p.tool("read_page", { url: p.site.url("/huge") });
  const ms = performance.now() - started;
  const nodes = await p.tool("execute_script", {
    script:
      "() => { const w = document.createTreeWalker(document, NodeFilter.SHOW_ALL); let n = 0; while (w.nextNode()) n++; return n; }",
  });
  expect(nodes.result).toBeGreaterThanOrEqual(50_000);
  expect(first.next_cursor).toBeString();
  withinBudget(first);
  expect(first.elements[0]).toMatchObject({ role: "link", name: "Item 0" });
  expect(ms).toBeLessThan(15_000);
  // The next parts carry on where the last stopped: no element twice, none skipped.
  const second = await p.tool("read_page", { cursor: first.next_cursor });
  withinBudget(second);
  const lastOfFirst = Number(first.elements.at(-1).name.slice(5));
  expect(second.elements[0].name).toBe(`Item ${lastOfFirst + 1}`);
  // A landmark part reads the page's end without paging through it all.
  const tail = await p.tool("read_page", { selector: { css: "footer" } });
  expect(tail.text).toContain("Last line");
});

const REAL: Array<[string, string, string]> = [
  ["wikipedia.html", "Cookie statement", "Wikipedia"],
  ["gitlab-blog.html", "Talk to an expert", "DevSecOps Survey"],
  ["nytimes-1.html", "Terms of Service", "New York Times"],
];

for (const [file, last, title] of REAL) {
  test(`a real page (${file}) is read to its end in parts, each within its token budget`, async () => {
    const body = readFileSync(join(PAGES, file), "utf8");
    // Served as saved; its third parties are unreachable here, as on any page whose trackers are down.
    p.page(`/real/${file}`, body.replace(/^<!doctype html>/i, ""));
    const all = await readAll(p.site.url(`/real/${file}`), 200);
    expect(all.parts).toBeGreaterThan(1);
    expect(all.text).toContain(last);
    expect(all.title).toContain(title);
  });
}
