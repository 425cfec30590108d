// A secret lives in the page only inside one call (spec §1.17), on the real Grid. A bound write fills,
// submits and empties its fields before it answers, on success and on failure, and the page's own
// mirrors follow; after it nothing in the browser holds the value, so nothing the agent does after
// (keys, copies, selectors, scripts, pictures, reads) is restricted or finds it. A script of the
// agent's that could reach the field's document refuses the write, naming the page.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { NO_SUBMIT } from "../../src/actions/write-bound.ts";
import { serveFixture } from "../support/fixtures.ts";
import { type McpClient, mcpClient } from "../support/mcp.ts";
import { secretPages } from "../support/secret-pages.ts";
import { endAll, logLines, startServer, type TestServer } from "../support/server.ts";

const W = "one-call";
const PASSWORD = "correct-horse-77";
const KEY = "sk-live-4f8a92c1d";
const WRONG = "wrong-horse-0042";
let port = 0;
const site = serveFixture(secretPages(() => port));
port = site.port;
const bank = (path: string) => site.url(path, "app.example.test");
const bodies: string[] = [];
let server: TestServer;
let mcp: McpClient;

async function call(path: string, body: unknown = {}) {
  const res = await server.call("POST", path, body, W);
  bodies.push(JSON.stringify(res.body));
  return res;
}
const script = async (s: string) => (await call("/browser/script", { script: s })).body.result;
const pw = { name: "bank", key: "password" };

beforeAll(async () => {
  server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.secrets.hold_ms = 400;
      c.secrets.entries = {
        bank: {
          description: "the bank's test user",
          allowed_urls: [`app.example.test`],
          keys: { password: { value: PASSWORD }, wrong: { value: WRONG }, key: { value: KEY } },
        },
      };
    },
  });
  mcp = await mcpClient(server, W);
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
  const everything = [...bodies, ...mcp.texts, ...logLines].join("\n");
  for (const v of [PASSWORD, KEY, WRONG]) expect(everything).not.toContain(v);
});

describe("a sign-in in one call", () => {
  test("fields and submit: the form is sent with the value, and Back finds the field empty", async () => {
    await call("/browser/navigate", { url: bank("/signin") });
    const res = await call("/browser/write", {
      fields: [
        { selector: { label: "Username" }, text: "ada" },
        { selector: { label: "Password" }, secret: pw },
      ],
      submit: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ url: bank("/welcome"), title: "Welcome" });
    expect(await script("document.querySelector('h1').textContent")).toBe("Welcome, ada");
    await call("/browser/navigate", { back: true });
    expect(await script("location.pathname")).toBe("/signin");
    expect(await script("document.getElementById('pw').value")).toBe("");
    expect(await script("document.getElementById('user').value")).toBe("ada");
  });

  test("a write with a secret and no submit is a 400 saying how to sign in in one call", async () => {
    await call("/browser/navigate", { url: bank("/signin") });
    const res = await call("/browser/write", { selector: { label: "Password" }, secret: pw });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(NO_SUBMIT);
    expect(await script("document.getElementById('pw').value")).toBe("");
  });

  test("a two-step sign-in: the name on one page, the password on the next", async () => {
    await call("/browser/navigate", { url: bank("/step1") });
    const one = await call("/browser/write", {
      selector: { label: "Email" },
      text: "ada@example.test",
      submit: true,
    });
    expect(one.body).toMatchObject({ title: "Password" });
    const two = await call("/browser/write", { selector: { label: "Password" }, secret: pw, submit: true });
    expect(two.body).toMatchObject({ url: bank("/welcome"), title: "Welcome" });
    expect(await script("document.getElementById('fields').textContent")).toBe("fields: user, pw");
  });

  test("a sign-in that fails: the field comes back empty, the error readable", async () => {
    await call("/browser/navigate", { url: bank("/spa") });
    const res = await call("/browser/write", {
      fields: [
        { selector: { label: "Email" }, text: "ada@example.test" },
        { selector: { label: "Password" }, secret: { name: "bank", key: "wrong" } },
      ],
      submit: { css: "#go" },
    });
    expect(res.status).toBe(200);
    const read = await call("/browser/read");
    expect(JSON.stringify(read.body)).toContain("Wrong email or password");
    // The page's own mirrors followed the emptying: the value attribute and the preview.
    expect(
      await script("[pw.value, pw.getAttribute('value'), document.getElementById('len').textContent]"),
    ).toEqual(["", "", ""]);
  });

  test("a single-page app that signs in by fetch", async () => {
    await call("/browser/navigate", { url: bank("/spa") });
    const res = await call("/browser/write", {
      fields: [
        { selector: { label: "Email" }, text: "ada@example.test" },
        { selector: { label: "Password" }, secret: pw },
      ],
      submit: true,
    });
    expect(res.status).toBe(200);
    const read = await call("/browser/extract", { selector: { css: "#root" } });
    expect(JSON.stringify(read.body)).toContain("Signed in as ada@example.test");
  });

  test("a submit that fails still leaves every field empty", async () => {
    await call("/browser/navigate", { url: bank("/signin") });
    const res = await call("/browser/write", {
      fields: [
        { selector: { label: "Username" }, text: "ada" },
        { selector: { label: "Password" }, secret: pw },
      ],
      submit: { css: "#no-such-button" },
      timeout: 0.5,
    });
    expect(res.status).toBe(400);
    expect(await script("document.getElementById('pw').value")).toBe("");
  });
});
