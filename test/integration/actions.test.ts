// The page actions on the real Grid: interact (every gesture), write, extract, execute_script and
// assert, with every selector kind, over REST and MCP (same results, same error text), the
// nothing-matched message, and a reaped browser reopened on its last page by the next action.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testGridUrl } from "../support/env.ts";
import { serveFixture } from "../support/fixtures.ts";
import { hints, type McpClient, mcpClient } from "../support/mcp.ts";
import { actionPages } from "../support/pages.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "page-actions";
const site = serveFixture(actionPages);
let server: TestServer;
let mcp: McpClient;

async function call(path: string, body: unknown = {}) {
  return server.call("POST", path, body, W);
}

async function go(path: string) {
  const res = await call("/browser/navigate", { url: site.url(path) });
  expect(res.status).toBe(200);
  return res;
}

/** The texts of every match, read through extract. */
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

beforeAll(async () => {
  server = await startServer({ dataDir: false });
  mcp = await mcpClient(server, W);
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

describe("interact", () => {
  test("click, double_click, right_click and focus reach the element; the result is the page after", async () => {
    await go("/clicks");
    for (const action of ["click", "double_click", "right_click"]) {
      const res = await call(`/browser/interact/${action}`, { selector: { css: "#one" } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ url: site.url("/clicks"), title: "Clicks" });
    }
    expect((await call("/browser/interact/focus", { selector: { label: "Focus me" } })).status).toBe(200);
    expect(await texts("#log li")).toEqual(["click", "click", "click", "dblclick", "contextmenu", "focus"]);
    const nav = await call("/browser/interact/click", { selector: { role: "link", name: "Go to two" } });
    expect(nav.body).toEqual({ url: site.url("/two"), title: "Two" });
    const record = await server.app.services.store.get(W);
    expect(record!.history[0]!.url).toBe(site.url("/two"));
  }, 120_000);

  test("a covered element: the error names what covers it, with its selector", async () => {
    await go("/clicks");
    const res = await call("/browser/interact/click", { selector: { css: "#under" }, timeout: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(
      '{"css":"#under"} is covered by <div#cover.overlay> "cover" ({"css":"#cover"})',
    );
  }, 120_000);

  test("hover opens a CSS hover menu, whose hidden link then becomes clickable", async () => {
    await go("/menu");
    const hidden = await call("/browser/interact/click", { selector: { text: "Settings" }, timeout: 0.3 });
    expect(hidden.status).toBe(400);
    expect(hidden.body.error).toContain(
      '{"text":"Settings"} matched 1 element but none is visible after 0.3 s',
    );
    expect((await call("/browser/interact/hover", { selector: { css: "#account" } })).status).toBe(200);
    const res = await call("/browser/interact/click", { selector: { text: "Settings" } });
    expect(res.body).toEqual({ url: site.url("/settings"), title: "Settings" });
  }, 120_000);

  test("scroll brings a far element into view", async () => {
    await go("/scroll");
    expect(await js("window.scrollY")).toBe(0);
    expect((await call("/browser/interact/scroll", { selector: { text: "Far down here" } })).status).toBe(
      200,
    );
    expect(await js("window.scrollY")).toBeGreaterThan(2000);
    const inView = await js(
      "(() => { const r = document.getElementById('far').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()",
    );
    expect(inView).toBe(true);
  }, 120_000);

  test("select by label or value; check and uncheck, a styled checkbox through its label; radios", async () => {
    await go("/form");
    const byLabel = await call("/browser/interact/select", {
      selector: { label: "Country" },
      value: "Germany",
    });
    expect(byLabel.body.selected).toEqual({ label: "Germany", value: "de" });
    const byValue = await call("/browser/interact/select", { selector: { css: "#country" }, value: "jp" });
    expect(byValue.body.selected).toEqual({ label: "Japan", value: "jp" });
    expect(await js("document.getElementById('country').value")).toBe("jp");
    const none = await call("/browser/interact/select", { selector: { css: "#country" }, value: "Spain" });
    expect(none.status).toBe(400);
    expect(none.body.error).toBe(
      '{"css":"#country"} has no option labelled or valued "Spain"; its options: "Choose…", "France", "Germany", "Japan"',
    );
    const notSelect = await call("/browser/interact/select", { selector: { css: "#email" }, value: "x" });
    expect(notSelect.body.error).toContain("is a <input> (textbox), not a <select>");

    for (const [sel, want] of [
      [{ label: "Send me news" }, true],
      [{ label: "I accept the terms" }, true],
      [{ css: "#news" }, false],
    ] as const) {
      const res = await call(`/browser/interact/${want ? "check" : "uncheck"}`, { selector: sel });
      expect(res.status).toBe(200);
      expect(res.body.checked).toBe(want);
    }
    expect(await js("[news.checked, terms.checked]")).toEqual([false, true]);
    // Checking twice changes nothing.
    expect((await call("/browser/interact/check", { selector: { css: "#terms" } })).body.checked).toBe(true);
    expect(await js("terms.checked")).toBe(true);

    expect(
      (await call("/browser/interact/check", { selector: { role: "radio", name: "Pro" } })).body.checked,
    ).toBe(true);
    expect(await js("document.querySelector('input[name=plan]:checked').value")).toBe("pro");
    const uncheckRadio = await call("/browser/interact/uncheck", {
      selector: { role: "radio", name: "Pro" },
    });
    expect(uncheckRadio.status).toBe(400);
    expect(uncheckRadio.body.error).toContain("is a radio button: it cannot be unchecked");
  }, 120_000);

  test("an ARIA checkbox and an ARIA button", async () => {
    await go("/roles");
    expect(
      (await call("/browser/interact/check", { selector: { role: "checkbox", name: "Remember me" } })).body
        .checked,
    ).toBe(true);
    expect(await js("document.getElementById('aria-box').getAttribute('aria-checked')")).toBe("true");
    expect(
      (await call("/browser/interact/click", { selector: { role: "button", name: "custom button" } })).status,
    ).toBe(200);
    expect(await texts("[role=button]")).toEqual(["Pressed"]);
  }, 120_000);

  test("press: combos on a field, and keys on the page without a selector", async () => {
    await go("/keys");
    const res = await call("/browser/interact/press", {
      selector: { label: "Keys field" },
      keys: "Control+a Backspace x Enter",
    });
    expect(res.status).toBe(200);
    expect(await js("document.getElementById('k').value")).toBe("x");
    expect(await texts("#keys li")).toEqual([
      "field:Control+Control",
      "field:Control+a",
      "field:Backspace",
      "field:x",
      "field:Enter",
    ]);
    await js("document.activeElement.blur()");
    expect((await call("/browser/interact/press", { keys: "Escape Shift+Tab" })).status).toBe(200);
    const all = await texts("#keys li");
    // (the page logs a modifier's own keydown with itself held: "Shift+Shift")
    expect(all.slice(5)).toEqual(["page:Escape", "page:Shift+Shift", "page:Shift+Tab"]);
  }, 120_000);

  test("drag: an HTML5 draggable onto its drop zone, and a pointer drag", async () => {
    await go("/drag");
    expect(
      (await call("/browser/interact/drag", { selector: { text: "Card" }, target: { text: "Bin" } })).status,
    ).toBe(200);
    expect(await texts("#drop-log")).toEqual(["dropped card"]);
    expect(
      (await call("/browser/interact/drag", { selector: { css: "#handle" }, target: { css: "#bin" } }))
        .status,
    ).toBe(200);
    expect(await texts("#pointer-log")).toEqual(["handle in bin"]);
  }, 120_000);

  test("bad input is refused before the browser is touched, naming the field", async () => {
    const cases: [string, unknown, string][] = [
      ["click", {}, 'field "selector" must be given for click'],
      ["select", { selector: { css: "#x" } }, 'field "value" must be given for select'],
      ["click", { selector: { css: "#x" }, keys: "Enter" }, 'field "keys" must only come with action press'],
      ["press", { keys: "Contrl+a" }, 'field "keys" must be valid: it has "Contrl" before a "+"'],
      ["press", { keys: "Entr" }, 'unknown key "Entr"'],
      [
        "click",
        { selector: { css: "#x", text: "y" } },
        'field "selector" must name exactly one of ref, css, xpath, text, label or role',
      ],
      ["click", { selector: { css: "#x", exact: false } }, 'field "selector.exact" must only come with text'],
      ["click", { selector: { css: "#x" }, timeout: 500 }, "at most 120"],
      ["wiggle", { selector: { css: "#x" } }, 'field "action" must be one of'],
    ];
    for (const [action, body, message] of cases) {
      const res = await call(`/browser/interact/${action}`, body);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain(message);
    }
  });
});

describe("selectors", () => {
  test("every kind finds its element; text is exact by default and contained with exact: false", async () => {
    await go("/form");
    const kinds: [unknown, string][] = [
      [{ css: "#email" }, "email"],
      [{ xpath: "//input[@name='fullname']" }, "fullname"],
      [{ label: "Email" }, "email"],
      [{ label: "Full name" }, "fullname"],
      [{ label: "Nickname" }, "nick"],
      [{ label: "Phone" }, "phone"],
      [{ label: "Promo code" }, "promo"],
      [{ role: "textbox", name: "email" }, "email"],
      [{ role: "combobox", name: "Country" }, "country"],
    ];
    for (const [selector, name] of kinds) {
      const res = await call("/browser/extract", {
        selector,
        get: "attribute",
        attribute: "name",
        timeout: 0,
      });
      expect(res.status).toBe(200);
      expect(res.body.result).toBe(name);
    }
    const exact = await call("/browser/extract", {
      selector: { text: "Create account" },
      get: "attribute",
      attribute: "id",
    });
    expect(exact.body.result).toBe("go");
    const partial = await call("/browser/extract", { selector: { text: "create acc" }, timeout: 0.2 });
    expect(partial.status).toBe(400);
    const contained = await call("/browser/extract", {
      selector: { text: "create acc", exact: false },
      get: "attribute",
      attribute: "id",
    });
    expect(contained.body.result).toBe("go");
  }, 120_000);

  test("nothing matched: a 400 quoting the selector and what is on the page instead, for every kind", async () => {
    await go("/form");
    const cases: [unknown, string[]][] = [
      [
        { text: "Create acount" },
        [
          'nothing matched {"text":"Create acount"} within 0.3 s.',
          'Nearest visible texts on the page: "Create account"',
        ],
      ],
      [
        { label: "Emial" },
        ['nothing matched {"label":"Emial"}', 'Nearest field labels on the page: "Email"'],
      ],
      [
        { role: "button", name: "Register" },
        [
          'nothing matched {"role":"button","name":"Register"}',
          'names of button elements on the page: "Create account"',
          "Roles on the page:",
        ],
      ],
      [{ role: "slider" }, ["Roles on the page: textbox"]],
      [{ css: "#submit" }, ['nothing matched {"css":"#submit"}', '#go (button "Create account")']],
      [{ xpath: "//button[@id='submit']" }, ["Nearest elements with selectors on the page:"]],
    ];
    for (const [selector, parts] of cases) {
      const res = await call("/browser/interact/click", { selector, timeout: 0.3 });
      expect(res.status).toBe(400);
      for (const p of parts) expect(res.body.error).toContain(p);
      expect(res.body.error).toEndWith("Call read_page to see the page and its selectors");
    }
    const css = await call("/browser/interact/click", { selector: { css: "a[[" } });
    expect(css.body.error).toStartWith('field "selector.css" is not a valid CSS selector:');
    const xp = await call("/browser/interact/click", { selector: { xpath: "//[" } });
    expect(xp.body.error).toStartWith('field "selector.xpath" is not a valid XPath expression:');
  }, 120_000);

  test("the wait: an element that appears late is found; one that never appears fails after the timeout", async () => {
    await go("/late");
    const started = Date.now();
    const res = await call("/browser/interact/click", { selector: { text: "Late button" } });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThan(400);
    expect(await texts("#late-btn")).toEqual(["Clicked late"]);
    const t0 = Date.now();
    const never = await call("/browser/interact/click", { selector: { css: "#never" }, timeout: 1 });
    expect(never.status).toBe(400);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - t0).toBeLessThan(4000);
  }, 120_000);
});

describe("write", () => {
  test("types into fields found by any selector, clears first by default, appends with clear: false", async () => {
    await go("/form");
    expect(
      (await call("/browser/write", { selector: { label: "Email" }, text: "ann@example.test" })).status,
    ).toBe(200);
    expect(
      (await call("/browser/write", { selector: { label: "Email" }, text: "bob@example.test" })).status,
    ).toBe(200);
    expect((await call("/browser/write", { selector: { label: "Full name" }, text: "Ann" })).status).toBe(
      200,
    );
    expect(
      (await call("/browser/write", { selector: { label: "Full name" }, text: " Lee", clear: false })).status,
    ).toBe(200);
    expect(
      (await call("/browser/write", { selector: { css: "#bio" }, text: "line one\nline two" })).status,
    ).toBe(200);
    expect(await js("[email.value, document.querySelector('[name=fullname]').value, bio.value]")).toEqual([
      "bob@example.test",
      "Ann Lee",
      "line one\nline two",
    ]);
  }, 120_000);

  test("url goes first; submit sends the form and returns the landing page", async () => {
    const res = await call("/browser/write", {
      url: site.url("/form"),
      selector: { label: "Email" },
      text: "cat@example.test",
      submit: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.title).toBe("Done");
    expect(res.body.url).toStartWith(site.url("/done?email=cat%40example.test"));
    expect(await texts("h1")).toEqual(["Welcome, cat@example.test"]);
  }, 120_000);

  test("what cannot be typed into is refused with a reason; text and secret exclude each other", async () => {
    await go("/form");
    const button = await call("/browser/write", { selector: { css: "#go" }, text: "x" });
    expect(button.body.error).toContain('{"css":"#go"} is a <button>, not a field you can type into');
    const box = await call("/browser/write", { selector: { css: "#news" }, text: "x" });
    expect(box.body.error).toContain("is a <input type=checkbox>, not a field you can type into");
    const locked = await call("/browser/write", { selector: { label: "Locked" }, text: "x" });
    expect(locked.body.error).toBe('{"label":"Locked"} is read-only: it cannot be typed into');
    const both = await call("/browser/write", {
      selector: { css: "#email" },
      text: "x",
      secret: { name: "a", key: "b" },
    });
    expect(both.body.error).toContain("give exactly one of text or secret");
    const neither = await call("/browser/write", { selector: { css: "#email" } });
    expect(neither.status).toBe(400);
  }, 120_000);

  test("a typed value never appears in an error", async () => {
    await go("/form");
    const typed = "very-private-words";
    const res = await call("/browser/write", { selector: { css: "#nope" }, text: typed, timeout: 0.2 });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).not.toContain(typed);
  }, 120_000);
});

describe("extract", () => {
  test("text, html, value, attribute, and all in page order", async () => {
    await go("/roles");
    expect((await call("/browser/extract", { selector: { text: "Tea" } })).body).toMatchObject({
      result: "Tea",
      count: 1,
      title: "Roles",
    });
    const prices = await call("/browser/extract", { selector: { css: ".price" }, all: true });
    expect(prices.body).toMatchObject({ results: ["3", "5"], count: 2 });
    const html = await call("/browser/extract", { selector: { css: ".price" }, get: "html" });
    expect(html.body.result).toBe('<td class="price">3</td>');
    const href = await call("/browser/extract", {
      selector: { role: "link", name: "two" },
      attribute: "href",
    });
    expect(href.body.result).toBe("/two");
    const missing = await call("/browser/extract", { selector: { role: "link" }, attribute: "data-nope" });
    expect(missing.body.result).toBeNull();
    const none = await call("/browser/extract", { selector: { css: ".nothing" }, all: true, timeout: 0.2 });
    expect(none.body).toMatchObject({ results: [], count: 0 });

    await call("/browser/write", {
      url: site.url("/form"),
      selector: { label: "Email" },
      text: "dee@example.test",
    });
    const value = await call("/browser/extract", { selector: { label: "Email" }, get: "value" });
    expect(value.body.result).toBe("dee@example.test");
    const fieldText = await call("/browser/extract", { selector: { label: "Country" } });
    expect(fieldText.body.result).toBe("Choose…");
  }, 120_000);

  test("a password field's value is never read", async () => {
    await go("/signin");
    await call("/browser/write", { selector: { label: "Password" }, text: "typed-in-here" });
    for (const body of [
      { selector: { label: "Password" }, get: "value" },
      { selector: { label: "Password" } },
      { selector: { css: "#pw" }, attribute: "value" },
    ]) {
      const res = await call("/browser/extract", body);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain("is a password field: its value is never read");
    }
    const all = await call("/browser/extract", { selector: { css: "input" }, all: true, get: "value" });
    expect(all.body.results).toEqual(["", null]);
  }, 120_000);
});

describe("execute_script", () => {
  test("an expression, a function with args, a body with return, a promise; elements described", async () => {
    await go("/form");
    expect(await js("document.title")).toBe("Sign up");
    const withArgs = await call("/browser/script", { script: "(a, b) => a + b", args: [2, 3] });
    expect(withArgs.body.result).toBe(5);
    const body = await call("/browser/script", {
      script: "const x = arguments[0];\nreturn { x, n: null };",
      args: ["y"],
    });
    expect(body.body.result).toEqual({ x: "y", n: null });
    expect(await js("new Promise(r => setTimeout(() => r('later'), 50))")).toBe("later");
    expect(await js("document.getElementById('go')")).toBe('<button#go> "Create account"');
    expect(await js("(() => { const o = { f() {} }; o.self = o; return o; })()")).toEqual({
      f: "[function]",
      self: "[circular]",
    });
    expect(await js("undefined")).toBeNull();
    expect(await js("[NaN, 1/0]")).toEqual(["NaN", "Infinity"]);
  }, 120_000);

  test("a page error is a 400 with the page's message; a navigation is reported", async () => {
    await go("/form");
    const thrown = await call("/browser/script", { script: "throw new Error('boom here')" });
    expect(thrown.status).toBe(400);
    expect(thrown.body.error).toBe("the page's script failed: boom here");
    const undef = await call("/browser/script", { script: "return nosuchthing.x" });
    expect(undef.body.error).toBe("the page's script failed: nosuchthing is not defined");
    const moved = await call("/browser/script", {
      script: `location.href = ${JSON.stringify(site.url("/two"))}`,
    });
    expect(moved.status).toBe(200);
    const after = await call("/browser/assert", { script: "document.title === 'Two'", timeout: 5 });
    expect(after.body).toMatchObject({ url: site.url("/two"), title: "Two" });
  }, 120_000);
});

describe("assert", () => {
  test("visible, present, absent, a script, stable_for", async () => {
    await go("/late");
    const visible = await call("/browser/assert", { selector: { text: "Now you see me" } });
    expect(visible.body).toMatchObject({ seen: "1 match, 1 visible", title: "Late" });
    const absent = await call("/browser/assert", {
      selector: { css: "#spinner" },
      state: "absent",
      timeout: 5,
    });
    expect(absent.body.seen).toBe("no match");
    const present = await call("/browser/assert", { selector: { css: "#slot" }, state: "present" });
    expect(present.status).toBe(200);
    const stable = await call("/browser/assert", {
      script: "document.getElementById('counter').textContent",
      stable_for: 0.5,
    });
    expect(stable.body.seen).toBe('the script returned "5"');
  }, 120_000);

  test("a condition that does not hold: a 400 saying what was seen", async () => {
    await go("/late");
    const hidden = await call("/browser/assert", { selector: { css: "#slot" }, timeout: 0.3 });
    expect(hidden.status).toBe(400);
    expect(hidden.body.error).toBe(
      'assert failed after 0.3 s: waited for {"css":"#slot"} to be visible (seen: 1 match, 0 visible)',
    );
    const never = await call("/browser/assert", { selector: { text: "Nowhere" }, timeout: 0.3 });
    expect(never.body.error).toContain("(seen: no match. Nearest visible texts on the page:");
    const still = await call("/browser/assert", { selector: { css: "h1" }, state: "absent", timeout: 0.3 });
    expect(still.body.error).toContain("to be absent (seen: 1 match, 1 visible)");
    const script = await call("/browser/assert", { script: "1 + 1 === 3", timeout: 0.3 });
    expect(script.body.error).toBe(
      "assert failed after 0.3 s: waited for the script to return truthy (seen: the script returned false)",
    );
    await go("/late");
    const flicker = await call("/browser/assert", {
      script: "Number(document.getElementById('counter').textContent) < 3",
      stable_for: 2,
      timeout: 0.2,
    });
    expect(flicker.status).toBe(400);
    expect(flicker.body.error).toContain("not the 2 s of stable_for");
  }, 120_000);
});

describe("a dialog", () => {
  test("the action that opens one says so; the next is refused with its text until it is answered", async () => {
    await go("/confirm");
    const opened = await call("/browser/interact/click", { selector: { text: "Delete" } });
    expect(opened.status).toBe(200);
    expect(opened.body).toEqual({ url: "", title: "", dialog: "Delete it?" });
    const refused = await call("/browser/extract", { selector: { css: "#answer" } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe(
      'a dialog is open: answer it with the dialog tool first (it says: "Delete it?")',
    );
    const over = await mcp.tool("interact", { action: "click", selector: { css: "#del" } });
    expect(over.content[0].text).toBe(refused.body.error);
    expect((await call("/browser/dialog", { action: "accept" })).status).toBe(200);
    expect(await texts("#answer")).toEqual(["deleted"]);
    const record = await server.app.services.store.get(W);
    expect(record!.history[0]!.url).toBe(site.url("/confirm"));
  }, 120_000);
});

describe("MCP", () => {
  test("the tools are listed with annotations that say who changes the page", async () => {
    const { data } = await mcp.request("tools/list");
    const tools = new Map<string, any>(data.result.tools.map((t: any) => [t.name, t]));
    for (const name of ["interact", "write", "execute_script"]) {
      expect(hints(tools.get(name).annotations)).toMatchObject({
        readOnlyHint: false,
        destructiveHint: true,
      });
    }
    for (const name of ["extract", "read_page", "assert"]) {
      expect(hints(tools.get(name).annotations)).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
      });
    }
    expect(tools.get("interact").inputSchema.properties.action.enum).toContain("drag");
    expect(tools.get("interact").inputSchema.required).toContain("action");
  });

  test("the main actions give the same results and the same error text as REST", async () => {
    await go("/form");
    const pairs: [string, string, Record<string, unknown>][] = [
      ["write", "/browser/write", { selector: { label: "Email" }, text: "eve@example.test" }],
      [
        "interact",
        "/browser/interact/select",
        { action: "select", selector: { label: "Country" }, value: "France" },
      ],
      ["interact", "/browser/interact/check", { action: "check", selector: { label: "Send me news" } }],
      ["extract", "/browser/extract", { selector: { label: "Email" }, get: "value" }],
      ["execute_script", "/browser/script", { script: "document.getElementById('country').value" }],
      ["assert", "/browser/assert", { selector: { css: "#go" } }],
      ["read_page", "/browser/read", { selector: { css: "#signup" } }],
    ];
    for (const [tool, path, args] of pairs) {
      const over = await mcp.tool(tool, args);
      const { action: _, ...body } = args;
      const rest = await call(path, path.includes("/interact/") ? body : args);
      expect(over.isError).toBeFalsy();
      expect(rest.status).toBe(200);
      expect(over.structuredContent).toEqual(rest.body);
    }
    const failing: [string, string, Record<string, unknown>][] = [
      ["interact", "/browser/interact/click", { action: "click", selector: { text: "Nope" }, timeout: 0.2 }],
      ["interact", "/browser/interact/press", { action: "press", keys: "Entr" }],
      ["write", "/browser/write", { selector: { css: "#go" }, text: "x" }],
      ["execute_script", "/browser/script", { script: "throw new Error('same')" }],
      ["assert", "/browser/assert", { script: "false", timeout: 0.2 }],
      ["extract", "/browser/extract", { selector: { css: "a[[" } }],
    ];
    for (const [tool, path, args] of failing) {
      const over = await mcp.tool(tool, args);
      const { action: _, ...body } = args;
      const rest = await call(path, path.includes("/interact/") ? body : args);
      expect(over.isError).toBe(true);
      expect(rest.status).toBe(400);
      expect(over.content[0].text).toBe(rest.body.error);
    }
  }, 120_000);
});

describe("a reaped browser", () => {
  test("is reopened on its last page by the next action, which then succeeds", async () => {
    await go("/clicks");
    const before = await server.app.services.store.get(W);
    const del = await fetch(`${testGridUrl}/session/${before!.session_id}`, { method: "DELETE" });
    expect(del.status).toBe(200);
    const res = await call("/browser/interact/click", { selector: { css: "#one" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ url: site.url("/clicks"), title: "Clicks" });
    const after = await server.app.services.store.get(W);
    expect(after!.session_id).not.toBe(before!.session_id);
    expect(await texts("#log li")).toEqual(["click"]);
  }, 120_000);
});
