// Answers that said less than what happened (issue 44, items 11 to 14), on the real Grid, each on a
// page of test/fixtures/answers that reproduces it, beside the ordinary use that must not change: a
// click on a button that nested frames shrink to a sliver, a write whose page rewrote the value, a
// read of a page whose list is still on its way, and the viewport's size and a regex search.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { html, type Routes, serveFixture } from "../support/fixtures.ts";
import { mcpClient } from "../support/mcp.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "honest-answers";
const DIR = join(import.meta.dir, "..", "fixtures", "answers");
const CODE = "zq7-code-not-shown";
const routes: Routes = {
  // The list a skeleton page asks for, answered after ?ms.
  "/api/orders": async (req) => {
    await Bun.sleep(Number(new URL(req.url).searchParams.get("ms") ?? "0"));
    return Response.json(["Order 17", "Order 18"]);
  },
};
for (const f of readdirSync(DIR).filter((n) => n.endsWith(".html")))
  routes[`/${f.slice(0, -5)}`] = () =>
    html(readFileSync(join(DIR, f), "utf8").replaceAll("{{pay}}", `http://pay.example.test:${site.port}`));
const site = serveFixture(routes);
const bodies: string[] = [];
let server: TestServer;

async function call(path: string, body: unknown = {}) {
  const res = await server.call("POST", path, body, W);
  bodies.push(JSON.stringify(res.body));
  return res;
}

/** A call that must answer 200 (its error said on failure). */
async function ok(path: string, body: unknown) {
  const res = await call(path, body);
  expect({ status: res.status, error: res.body?.error }).toEqual({ status: 200, error: undefined });
  return res.body;
}

/** The top document's log lines (a fixture's #log list). */
async function logged(): Promise<string[]> {
  const got = await call("/browser/extract", { selector: { css: "#log li" }, all: true, timeout: 0 });
  return got.body.results ?? [];
}

/** The log once a line is in: "paid" comes by postMessage from a frame of another process, a moment after the click. */
async function loggedOnce(): Promise<string[]> {
  const until = Date.now() + 3_000;
  for (;;) {
    const lines = await logged();
    if (lines.length || Date.now() > until) return lines;
    await Bun.sleep(50);
  }
}

const refOf = (page: any, name: string): string => {
  const el = page.elements.find((e: any) => e.name === name);
  expect([name, el?.ref]).toEqual([name, expect.stringMatching(/^[a-z]{1,2}\d+$/)]);
  return el.ref;
};

beforeAll(async () => {
  server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.secrets.hold_ms = 300;
      c.secrets.entries = {
        code: {
          description: "a code for the rewrite page",
          allowed_urls: [`http://app.example.test:${site.port}/rewrite`],
          keys: { code: { value: CODE } },
        },
      };
    },
  });
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
  // A bound write's value, even rewritten by the page, never comes back.
  const everything = bodies.join("\n");
  expect(everything).not.toContain(CODE);
  expect(everything).not.toContain(CODE.toUpperCase());
});

describe("11. a click on a button nested frames shrink to a sliver", () => {
  test("the click goes through the 4 px that show, and the button gets it", async () => {
    const page = await ok("/browser/read", { url: site.url("/sliver") });
    const res = await call("/browser/interact/click", { selector: { ref: refOf(page, "Pay now") } });
    expect({ status: res.status, error: res.body?.error }).toEqual({ status: 200, error: undefined });
    expect(await loggedOnce()).toEqual(["paid"]);
  });

  test("a button nothing of which shows through the sliver is a 400 saying so, and nothing is clicked", async () => {
    const page = await ok("/browser/read", { url: site.url("/sliver-hidden") });
    const res = await call("/browser/interact/click", {
      selector: { ref: refOf(page, "Pay now") },
      timeout: 1,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(
      'is in a frame that shows none of it: the frame {"css":"#outer"} is clipped',
    );
    expect(res.body.error).toContain("interact focus, then press Enter");
    expect(await logged()).toEqual([]);
  });

  test("in a frame of another origin cut to a sliver, the press that missed is a 400, never a success", async () => {
    const page = await ok("/browser/read", { url: site.url("/sliver-far") });
    const res = await call("/browser/interact/click", { selector: { ref: refOf(page, "Pay now") } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("did not get the click: the press landed outside its frame");
    expect(await logged()).not.toContain("paid");
  });

  test("the same button in frames at full size is clicked as before", async () => {
    const page = await ok("/browser/read", { url: site.url("/nested") });
    await ok("/browser/interact/click", { selector: { ref: refOf(page, "Pay now") } });
    expect(await loggedOnce()).toEqual(["paid"]);
  });
});

describe("12. write says what the page made of the value", () => {
  test("plain text fires change as a secret's fill does, and a value the page rewrote comes back", async () => {
    await ok("/browser/navigate", { url: site.url("/rewrite") });
    const got = await ok("/browser/write", { selector: { label: "Amount" }, text: "5" });
    expect(got.changed).toEqual(['{"label":"Amount"} holds "5.00"']);
    expect(await logged()).toEqual(["change amount"]);
  });

  test("a field the page keeps as typed answers as before, its change fired once", async () => {
    await ok("/browser/navigate", { url: site.url("/rewrite") });
    const got = await ok("/browser/write", { selector: { label: "Note" }, text: "leave at the door" });
    expect(Object.keys(got).sort()).toEqual(["title", "url"]);
    expect(await logged()).toEqual(["change note"]);
    const note = await ok("/browser/extract", { selector: { label: "Note" }, get: "value" });
    expect(note.result).toBe("leave at the door");
  });

  test("a date set whole fires change once, as before", async () => {
    await ok("/browser/navigate", { url: site.url("/rewrite") });
    const got = await ok("/browser/write", { selector: { label: "When" }, text: "2024-01-31" });
    expect(Object.keys(got).sort()).toEqual(["title", "url"]);
    expect(await logged()).toEqual(["change when"]);
  });

  test("a write with a secret says which fields the page changed, never their values", async () => {
    await ok("/browser/navigate", { url: site.url("/rewrite") });
    const got = await ok("/browser/write", {
      fields: [
        { selector: { label: "Amount" }, text: "7" },
        { selector: { label: "Code" }, secret: { name: "code", key: "code" } },
      ],
      submit: "auto",
    });
    expect(got.changed).toEqual(['{"label":"Amount"}', '{"label":"Code"}']);
    expect(await logged()).toEqual(["change amount", "change code", "change code"]);
  });
});

describe("13. a page still loading its content says so", () => {
  test("a list whose request is still on its way: read_page says a request is in flight", async () => {
    await ok("/browser/navigate", { url: site.url("/skeleton?ms=4000") });
    const page = await ok("/browser/read", {});
    expect(page.text).not.toContain("Order 17");
    expect(page.in_flight).toBe(1);
    const mcp = await mcpClient(server, W);
    const read = await mcp.tool("read_page", {});
    expect(read.content[0].text).toMatch(/^in_flight: 1 request of the page still loading/m);
  });

  test("a list whose request ends within the wait is read whole, and nothing says in flight", async () => {
    await ok("/browser/navigate", { url: site.url("/skeleton?ms=300") });
    const page = await ok("/browser/read", {});
    expect(page.text).toContain("Order 17");
    expect(page.in_flight).toBeUndefined();
  });

  test("a page with nothing in flight reads at once, without in_flight", async () => {
    await ok("/browser/navigate", { url: site.url("/search") });
    const t0 = performance.now();
    const page = await ok("/browser/read", {});
    expect(performance.now() - t0).toBeLessThan(900);
    expect(page.in_flight).toBeUndefined();
  });
});

describe("14. the viewport's size, and a regex search of the text", () => {
  test("read_page says the viewport's size, in its header and its JSON", async () => {
    const page = await ok("/browser/read", { url: site.url("/search") });
    const size = await ok("/browser/script", { script: "return innerWidth + 'x' + innerHeight" });
    expect(page.viewport).toBe(size.result);
    expect(page.viewport).toMatch(/^\d+x\d+$/);
    const mcp = await mcpClient(server, W);
    const read = await mcp.tool("read_page", {});
    expect(read.content[0].text).toContain(`\nviewport: ${size.result}\n`);
  });

  test("a text selector written /pattern/flags searches the text: every price, every code in any case", async () => {
    await ok("/browser/navigate", { url: site.url("/search") });
    const prices = await ok("/browser/extract", { selector: { text: "/\\$\\d+\\.\\d\\d/" }, all: true });
    expect(prices.results).toEqual(["$4.50", "$12.00", "Total due: $16.50"]);
    const codes = await ok("/browser/extract", { selector: { text: "/^sku-\\d+$/i" }, all: true });
    expect(codes.results).toEqual(["SKU-1041", "SKU-2210", "sku-9"]);
  });

  test("plain text selectors match as before, slashes inside them too; a broken pattern is a 400", async () => {
    await ok("/browser/navigate", { url: site.url("/search") });
    const tea = await ok("/browser/extract", { selector: { text: "Tea" }, all: true });
    expect(tea.results).toEqual(["Tea"]);
    const deal = await ok("/browser/extract", { selector: { text: "1/2 off", exact: false } });
    expect(deal.result).toBe("Deal: 1/2 off");
    const res = await call("/browser/extract", { selector: { text: "/[a-/" } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("not a valid one");
  });
});
