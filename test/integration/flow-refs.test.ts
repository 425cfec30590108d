// A run done with refs, as an agent works (read_page, then act on {"ref": "e6"}), kept as a flow
// (issue 43, item 8): each call's entry keeps, beside the ref, a durable locator read in the page as
// the call resolved it; the kept flow names every element by its locator, never a ref, and a
// secret by its name; run in a fresh browser (the form's ids change on every load) it reaches the
// same result. A ref whose element could not be given a locator refuses the save, naming the step.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parse } from "yaml";
import { html, serveFixture } from "../support/fixtures.ts";
import { type McpClient, mcpClient } from "../support/mcp.ts";
import { endAll, logLines, startServer, type TestServer, TOKEN } from "../support/server.ts";

const W = "flow-refs";
const TWINS = "flow-refs-twins";
const PASSWORD = "pw-8k2-vq7x-jm3d"; // no word in it: once typed, no 4 characters of it come back anywhere
const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
/** An id made up anew on every load, as frameworks make them. */
const madeUp = () => `f-${crypto.randomUUID().slice(0, 8)}`;
/** What the sign-up form posted, each time. */
const posted: Record<string, string>[] = [];

const site = serveFixture({
  "/": () =>
    html(`<title>Shop</title><nav><a href="/account/new">Create an account</a> · <a href="/help">Help</a></nav>
<h1>Shop</h1><p>Everything for the garden.</p>`),
  "/account/new": () => {
    const [email, nick, pw, plan, terms, create] = Array.from({ length: 6 }, madeUp);
    return html(`<title>New account</title><h1>Create an account</h1>
<form action="/account/done" method="post">
  <p><label for="${email}">Email</label> <input id="${email}" name="email" type="email"></p>
  <p><input id="${nick}" name="nick" placeholder="Nickname"></p>
  <p><label for="${pw}">Password</label> <input id="${pw}" name="pw" type="password"></p>
  <p><label for="${plan}">Plan</label> <select id="${plan}" name="plan"><option value="free">Free</option><option value="pro">Pro</option></select></p>
  <p><label><input type="checkbox" name="terms" id="${terms}"> I accept the terms</label></p>
  <p><button id="${create}" data-testid="create">Create account</button> <button type="button" id="${madeUp()}">Create account</button></p>
</form>`);
  },
  "/account/done": async (req) => {
    const form = Object.fromEntries(new URLSearchParams(await req.text()));
    posted.push({ ...form, pw: form.pw === PASSWORD ? "the password" : "another" });
    const email = form.email ?? "";
    return html(`<title>Welcome</title><h1>Welcome, ${esc(email)}</h1>
<p><a href="/orders?for=${encodeURIComponent(email)}">Your orders</a></p>`);
  },
  "/orders": (req) =>
    html(`<title>Orders</title><h1>Orders of ${esc(new URL(req.url).searchParams.get("for") ?? "")}</h1>`),
  // Two unlabelled fields alike, one in the page and one in a shadow root: the second has no
  // locator that finds it and not the first.
  "/twins": () =>
    html(`<title>Twins</title><p><input></p><x-box></x-box>
<script>customElements.define('x-box', class extends HTMLElement { constructor(){ super(); this.attachShadow({mode:'open'}).innerHTML='<input>'; } });</script>`),
});
let server: TestServer;
let agent: McpClient;

type Element = { ref: string; role: string; name?: string };
async function read(mcp: McpClient): Promise<Element[]> {
  const got = await mcp.tool("read_page", {});
  expect(got.isError).toBeFalsy();
  return got.structuredContent.elements as Element[];
}
const refOf = (elements: Element[], role: string, name: string) => {
  const el = elements.find((e) => e.role === role && e.name === name);
  if (!el) throw new Error(`read_page listed no ${role} "${name}"`);
  return { ref: el.ref };
};
async function ok(mcp: McpClient, tool: string, args: Record<string, unknown>) {
  const got = await mcp.tool(tool, args);
  expect([tool, got.isError ? got.content[0].text : "ok"]).toEqual([tool, "ok"]);
  return got.structuredContent;
}
async function entries(workspace: string): Promise<any[]> {
  const res = await fetch(`${server.url}/admin/workspaces/${workspace}/timeline?limit=200`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { entries: any[] }).entries;
}

beforeAll(async () => {
  server = await startServer({
    configure: (c) => {
      c.secrets.entries = {
        shop: {
          description: "the shop's new account",
          allowed_urls: [site.url("/account/new")],
          keys: { password: { value: PASSWORD } },
        },
      };
    },
  });
  agent = await mcpClient(server, W);
}, 60_000);

afterAll(async () => {
  await endAll(server, [W, TWINS]);
  await server.close();
  site.stop();
});

describe("a run done with refs, kept as a flow", () => {
  test("every element named by its locator, a secret by its name; run in a fresh browser it reaches the same result", async () => {
    await ok(agent, "navigate", { url: site.url("/") });
    const shop = await read(agent);
    const opened = await ok(agent, "interact", {
      action: "click",
      selector: refOf(shop, "link", "Create an account"),
    });
    expect(opened.url).toBe(site.url("/account/new"));
    const form = await read(agent);
    const password = { name: "shop", key: "password" };
    await ok(agent, "interact", {
      action: "select",
      selector: refOf(form, "combobox", "Plan"),
      value: "Pro",
    });
    await ok(agent, "interact", { action: "check", selector: refOf(form, "checkbox", "I accept the terms") });
    const create = form.find((e) => e.role === "button" && e.name === "Create account") as Element;
    // The sign-up in one call: the text fields, the secret, and the form sent by its button.
    const sent = await ok(agent, "write", {
      fields: [
        { selector: refOf(form, "textbox", "Email"), text: "ada@example.test" },
        { selector: refOf(form, "textbox", "Nickname"), text: "ada" },
        { selector: refOf(form, "textbox", "Password"), secret: password },
      ],
      submit: { ref: create.ref },
    });
    expect([sent.url, sent.title]).toEqual([site.url("/account/done"), "Welcome"]);
    const welcome = await read(agent);
    const end = await ok(agent, "interact", {
      action: "click",
      selector: refOf(welcome, "link", "Your orders"),
    });
    expect([end.url, end.title]).toEqual([`${site.url("/orders")}?for=ada%40example.test`, "Orders"]);
    expect(posted).toEqual([
      { email: "ada@example.test", nick: "ada", pw: "the password", plan: "pro", terms: "on" },
    ]);

    const saved = await ok(agent, "save_flow", {
      name: "sign-up",
      from_timeline: { last: 9 },
      description: "Open an account for Ada.",
    });
    expect(saved).toMatchObject({ name: "sign-up", replaced: false, steps: 6 });
    const yaml = saved.yaml as string;
    expect(yaml).not.toMatch(/\bref\b/);
    expect(yaml).not.toContain(PASSWORD);
    expect(parse(yaml)).toEqual({
      description: "Open an account for Ada.",
      steps: [
        { tool: "navigate", args: { url: site.url("/") } },
        {
          tool: "interact",
          args: { action: "click", selector: { role: "link", name: "Create an account" } },
        },
        {
          tool: "interact",
          args: { action: "select", selector: { role: "combobox", name: "Plan" }, value: "Pro" },
        },
        {
          tool: "interact",
          args: { action: "check", selector: { role: "checkbox", name: "I accept the terms" } },
        },
        {
          tool: "write",
          args: {
            fields: [
              { selector: { role: "textbox", name: "Email" }, text: "ada@example.test" },
              { selector: { role: "textbox", name: "Nickname" }, text: "ada" },
              { selector: { role: "textbox", name: "Password" }, secret: password },
            ],
            // A test id comes first, as in Playwright's codegen (two buttons read "Create account").
            submit: { css: '[data-testid="create"]' },
          },
        },
        { tool: "interact", args: { action: "click", selector: { role: "link", name: "Your orders" } } },
      ],
    });

    // Each entry keeps, beside the ref it was given, the locator read for its element.
    const first = (await entries(W)).find(
      (e) => e.args.action === "click" && e.url === site.url("/account/new"),
    );
    expect(first.locators).toEqual([
      { selector: first.args.selector, locator: { role: "link", name: "Create an account" } },
    ]);

    // The admin's Save as flow over the same entries keeps the same steps.
    const listed = await entries(W);
    const range = await fetch(`${server.url}/admin/workspaces/${W}/timeline/flow`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "sign-up-range", from: listed.at(-1).n, to: listed[1].n }),
    });
    expect(range.status).toBe(200);
    expect(parse(((await range.json()) as { yaml: string }).yaml).steps).toEqual(parse(yaml).steps);

    // A fresh browser: the form's ids are new on this load, and no ref of the run means anything.
    expect(await ok(agent, "end_browser", {})).toMatchObject({ ended: true });
    const run = await ok(agent, "run_flow", { name: "sign-up" });
    expect(run.steps.map((s: { ok: boolean; error?: string }) => s.error ?? s.ok)).toEqual(
      Array(6).fill(true),
    );
    expect(run.status).toBe("ok");
    expect([run.url, run.title]).toEqual([end.url, "Orders"]);
    expect(posted).toHaveLength(2);
    expect(posted[1]).toEqual(posted[0] as Record<string, string>);

    const all = JSON.stringify(await entries(W));
    expect(all).not.toContain(PASSWORD);
    expect(logLines.join("\n")).not.toContain(PASSWORD);
  }, 240_000);

  test("a ref whose element could be given no locator refuses the save, naming the step and what to do", async () => {
    const mcp = await mcpClient(server, TWINS);
    await ok(mcp, "navigate", { url: site.url("/twins") });
    const fields = (await read(mcp)).filter((e) => e.role === "textbox");
    expect(fields).toHaveLength(2);
    const inShadow = { ref: (fields[1] as Element).ref };
    await ok(mcp, "write", { selector: inShadow, text: "inside" });
    const last = (await entries(TWINS))[0];
    expect(last.locators).toEqual([{ selector: inShadow, locator: null }]);

    const refused = await mcp.tool("save_flow", { name: "twins", from_timeline: { last: 3 } });
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toContain(
      `step 2 (#${last.n}, write) names its element by ref ${JSON.stringify(inShadow)}, and no locator was kept for it (none found that element alone`,
    );
    expect(refused.content[0].text).toContain(
      "do that call again naming the element by css, text, label or role",
    );
  }, 120_000);
});
