// read_page on the real Grid: what it returns for forms, links, selects, checkboxes and a password
// field; that every selector it gives matches exactly its element; narrowing; parts within
// max_length; frames and shadow roots. Refs and paging in depth: refs.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { serveFixture } from "../support/fixtures.ts";
import { actionPages } from "../support/pages.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "read-page";
const site = serveFixture(actionPages);
let server: TestServer;

const call = (path: string, body: unknown = {}) => server.call("POST", path, body, W);

async function read(path: string, extra: Record<string, unknown> = {}) {
  const res = await call("/browser/read", { url: site.url(path), ...extra });
  expect(res.status).toBe(200);
  return res.body;
}

const REF = expect.stringMatching(/^[a-z]{1,2}\d+$/);

/** Every element's selector finds exactly one element, and that element has the name read_page gave. */
async function expectSelectorsExact(elements: any[]) {
  for (const e of elements) {
    expect(e.selector).toBeDefined();
    const found = await call("/browser/extract", {
      selector: e.selector,
      all: true,
      get: "html",
      timeout: 0,
    });
    expect({ selector: e.selector, count: found.body.count }).toEqual({ selector: e.selector, count: 1 });
    const name = await call("/browser/script", {
      script: `(sel) => {
        const el = document.querySelector(sel);
        const by = el.getAttribute('aria-labelledby');
        return [el.getAttribute('aria-label'), by && document.getElementById(by).textContent,
          el.labels && el.labels[0] && el.labels[0].textContent, el.getAttribute('placeholder'), el.textContent, el.value].filter(Boolean).join(' ');
      }`,
      args: ["css" in e.selector ? e.selector.css : "nothing"],
    });
    if ("css" in e.selector && e.name) expect(name.body.result).toContain(e.name);
  }
}

beforeAll(async () => {
  server = await startServer({ dataDir: false });
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

describe("read_page", () => {
  test("a form: fields with labels, types and state, a select with its options, links, landmarks, headings, text", async () => {
    const page = await read("/form");
    expect(page.url).toBe(site.url("/form"));
    expect(page.title).toBe("Sign up");
    expect(page.headings).toEqual([{ level: 1, text: "Create an account" }]);
    expect(page.landmarks).toEqual([
      { role: "banner", ref: REF, selector: { css: "header" } },
      { role: "main", ref: REF, selector: { css: "main" } },
      { role: "form", ref: REF, selector: { css: "#signup" } },
      { role: "contentinfo", ref: REF, selector: { css: "footer" } },
    ]);
    const byName = new Map<string, any>(page.elements.map((e: any) => [e.name, e]));
    expect(byName.get("Home")).toEqual({
      ref: REF,
      role: "link",
      name: "Home",
      selector: { css: 'a[href="/"]' },
      href: "/",
    });
    expect(byName.get("Email")).toEqual({
      ref: REF,
      role: "textbox",
      name: "Email",
      selector: { css: "#email" },
      type: "email",
      required: true,
    });
    expect(byName.get("Country")).toEqual({
      ref: REF,
      role: "combobox",
      name: "Country",
      selector: { css: "#country" },
      options: ["Choose…", "France", "Germany", "Japan"],
      selected: "Choose…",
    });
    expect(byName.get("Free")).toMatchObject({ role: "radio", checked: true });
    expect(byName.get("Pro")).toMatchObject({ role: "radio", checked: false });
    expect(byName.get("I accept the terms")).toMatchObject({
      role: "checkbox",
      checked: false,
      selector: { css: "#terms" },
    });
    expect(byName.get("Locked")).toMatchObject({ value: "fixed", readonly: true });
    expect(byName.get("Create account")).toEqual({
      ref: REF,
      role: "button",
      name: "Create account",
      selector: { css: "#go" },
    });
    expect(page.text).toStartWith("Home Help\n# Create an account\nEmail");
    expect(page.next_cursor).toBeUndefined();
    await expectSelectorsExact(page.elements);

    // The state it reports follows the page.
    await call("/browser/write", {
      selector: page.elements.find((e: any) => e.name === "Full name").selector,
      text: "Ann",
    });
    await call("/browser/interact/select", { selector: byName.get("Country").selector, value: "France" });
    await call("/browser/interact/check", { selector: byName.get("I accept the terms").selector });
    const after = new Map<string, any>(
      (await call("/browser/read")).body.elements.map((e: any) => [e.name, e]),
    );
    expect(after.get("Full name").value).toBe("Ann");
    expect(after.get("Country").selected).toBe("France");
    expect(after.get("I accept the terms").checked).toBe(true);
  }, 120_000);

  test("a password field says whether it is filled, never its value", async () => {
    const before = await read("/signin");
    expect(before.elements.find((e: any) => e.name === "Password")).toEqual({
      ref: REF,
      role: "textbox",
      name: "Password",
      selector: { css: "#pw" },
      type: "password",
      filled: false,
    });
    await call("/browser/write", { selector: { label: "Password" }, text: "plain-typed-pw" });
    const res = await call("/browser/read");
    expect(res.body.elements.find((e: any) => e.name === "Password").filled).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain("plain-typed-pw");
  }, 120_000);

  test("selector reads one part of the page; a selector that matches nothing says what is there", async () => {
    await read("/form");
    const part = await call("/browser/read", { selector: { css: "#signup" } });
    expect(part.status).toBe(200);
    expect(part.body.elements.map((e: any) => e.name)).not.toContain("Home");
    expect(part.body.elements.map((e: any) => e.name)).toContain("Create account");
    expect(part.body.text).not.toContain("Home");
    expect(part.body.text).not.toContain("© Example");
    // A landmark's ref reads just that landmark.
    const form = (await call("/browser/read")).body.landmarks.find((l: any) => l.role === "form");
    const byRef = await call("/browser/read", { selector: { ref: form.ref } });
    expect(byRef.status).toBe(200);
    expect(byRef.body.elements.map((e: any) => e.name)).toEqual(part.body.elements.map((e: any) => e.name));
    const none = await call("/browser/read", { selector: { css: "#sign-up" }, timeout: 0.2 });
    expect(none.status).toBe(400);
    expect(none.body.error).toContain('nothing matched {"css":"#sign-up"}');
    expect(none.body.error).toContain("#signup");
  }, 120_000);

  test("a large page comes in parts of max_length, with a cursor to the next", async () => {
    const page = await read("/big", { max_length: 6000 });
    expect(page.next_cursor).toMatch(/^[a-z0-9]{6}\.\d+\.\d+$/);
    expect(page.elements.length).toBeGreaterThan(20);
    expect(page.elements.length).toBeLessThan(300);
    expect(page.elements[0]).toEqual({
      ref: REF,
      role: "textbox",
      name: "Quantity 0",
      selector: { css: 'input[name="qty0"]' },
      value: "0",
    });
    await expectSelectorsExact(page.elements.slice(0, 12));
    const whole = await read("/big", { max_length: 500_000 });
    expect(whole.next_cursor).toBeUndefined();
    expect(whole.elements).toHaveLength(1800);
    expect(whole.text.endsWith("Row 599 | | Add 599 | Item 599")).toBe(true);
  }, 120_000);

  test("a typical page fits in a few thousand tokens", async () => {
    const page = await read("/article");
    expect(JSON.stringify(page).length).toBeLessThan(12_000);
    expect(page.elements).toHaveLength(30);
    expect(page.landmarks).toContainEqual({
      role: "navigation",
      name: "Chapters",
      ref: REF,
      selector: { css: 'nav[aria-label="Chapters"]' },
    });
    expect(page.headings.map((h: any) => h.text)).toEqual(["A long article", "Part one", "Part two"]);
  }, 120_000);

  test("a same-origin frame is read, its elements marked with the frame to enter first", async () => {
    const page = await read("/framed");
    expect(page.frames).toEqual([
      { ref: REF, selector: { css: "#inner" }, url: site.url("/inner"), readable: true },
    ]);
    const code = page.elements.find((e: any) => e.name === "Code");
    expect(code).toEqual({
      ref: REF,
      role: "textbox",
      name: "Code",
      selector: { css: "#code" },
      frame: [{ css: "#inner" }],
    });
    expect(page.text).toContain("Code Inner button");
    const entered = await call("/browser/switch", { frame: code.frame[0] });
    expect(entered.status).toBe(200);
    expect((await call("/browser/write", { selector: code.selector, text: "1234" })).status).toBe(200);
    expect((await call("/browser/extract", { selector: code.selector, get: "value" })).body.result).toBe(
      "1234",
    );
    await call("/browser/switch", { frame: null });
  }, 120_000);

  test("an open shadow root is read, and its selector works as is", async () => {
    const page = await read("/shadow");
    const button = page.elements.find((e: any) => e.name === "Shadow button");
    expect(button).toEqual({
      ref: REF,
      role: "button",
      name: "Shadow button",
      selector: { css: "#shadow-btn" },
    });
    expect(page.text).toContain("Inside the shadow");
    const clicked = await call("/browser/interact/click", { selector: button.selector });
    expect(clicked.status).toBe(200);
    expect((await call("/browser/interact/click", { selector: { ref: button.ref } })).status).toBe(200);
    expect((await call("/browser/extract", { selector: { text: "Shadow button" } })).body.count).toBe(1);
  }, 120_000);
});
