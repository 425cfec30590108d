// A single-page app's sign-in, as an agent makes it: the password (a common word and a year) goes
// in by one bound write that fills the form and sends it, and the app swaps its form for the
// dashboard in the same document, with no navigation. The write empties its field before it answers
// (spec §1.17): its title and text read as they are (no run of the password is masked), scripts run in
// it and in a second tab, and a save keeps the app's token. A failed sign-in keeps the form, and the
// app that only hides it: the password field is empty. An app that copies the value into a field of
// its own after the write: the page's doing, trusted to it; the redactor masks the whole value.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "journey-spa";
const PASSWORD = "Example-2024-Summer!";
let server: TestServer;
const answers: string[] = [];

// ?after=replace (the default) swaps the form for the dashboard; hide keeps it, hidden, value and
// all; copy renders a new field holding the value. A wrong user keeps the form as it is. ?k names
// the token's key, so each sign-in starts signed out.
const APP = `<title>Example App 2024</title><div id=root></div><script>
const q = new URLSearchParams(location.search);
const after = q.get("after") || "replace";
const key = "token-" + (q.get("k") || "");
function dashboard() {
  const d = document.createElement("div");
  d.innerHTML = '<h1>Dashboard</h1><p id=who>Signed in at example.test since 2024</p>';
  return d;
}
function render() {
  if (localStorage.getItem(key)) { root.replaceChildren(dashboard()); return; }
  root.innerHTML = '<form id=f><label>User <input name=user></label><label>Password <input name=password type=password></label><button>Sign in</button><p id=msg></p></form>';
  document.getElementById("f").onsubmit = async (e) => {
    e.preventDefault();
    const body = Object.fromEntries(new FormData(e.target));
    const got = await (await fetch("/api/login", { method: "POST", body: JSON.stringify(body) })).json();
    if (!got.token) { document.getElementById("msg").textContent = "Wrong user or password"; return; }
    localStorage.setItem(key, got.token);
    if (after === "hide") { e.target.style.display = "none"; root.append(dashboard()); }
    else if (after === "copy") { const kept = document.createElement("input"); kept.value = body.password; root.replaceChildren(dashboard(), kept); }
    else render();
  };
}
render();</script>`;

const site = serveFixture({
  "/app": () => html(APP),
  "/api/login": async (req) => {
    const b = (await req.json()) as { user?: string; password?: string };
    const ok = b.user === "ada" && b.password === PASSWORD;
    return Response.json(ok ? { token: "tok-ada" } : { error: "no" }, { status: ok ? 200 : 401 });
  },
  "/docs": () => html(`<title>Example docs</title><p>Read the example.test docs for 2024.</p>`),
});

async function call(method: string, path: string, body?: unknown) {
  const res = await server.call(method, path, body, W);
  answers.push(JSON.stringify(res.body));
  return res;
}
const post = (path: string, body: unknown = {}) => call("POST", path, body);
const appUrl = (after = "replace", k = "1") => site.url(`/app?after=${after}&k=${k}`, "app.example.test");

/** Signs in as `user` on a fresh app (no token): one bound write that fills the form and sends it. */
async function signIn(after: string, k: string, user = "ada") {
  expect((await post("/browser/navigate", { url: appUrl(after, k) })).status).toBe(200);
  const w = await post("/browser/write", {
    fields: [
      { selector: { label: "User" }, text: user },
      { selector: { label: "Password" }, secret: { name: "app", key: "password" } },
    ],
    submit: { role: "button", name: "Sign in" },
  });
  expect([w.status, w.body.error]).toEqual([200, undefined]);
  await Bun.sleep(300);
}

beforeAll(async () => {
  server = await startServer({
    configure: (c) => {
      c.secrets.entries = {
        app: {
          description: "the app",
          allowed_urls: ["app.example.test"],
          keys: { password: { value: PASSWORD } },
        },
      };
    },
  });
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

describe("a single-page app's sign-in", () => {
  test("the form swapped for the dashboard: nothing masked or refused, a second tab too, and the token kept", async () => {
    await signIn("replace", "1");
    const read = await post("/browser/read");
    expect(read.body.title).toBe("Example App 2024");
    expect(read.body.text).toContain("Signed in at example.test since 2024");
    const script = await post("/browser/script", {
      script: "return document.getElementById('who').textContent",
    });
    expect(script.status).toBe(200);
    expect(script.body.result).toBe("Signed in at example.test since 2024");
    const tab = await post("/browser/switch", { tab: "new", url: site.url("/docs", "docs.example.test") });
    expect(tab.body.title).toBe("Example docs");
    expect((await post("/browser/script", { script: "return document.title" })).body.result).toBe(
      "Example docs",
    );
    await post("/browser/switch", { tab: 0 });
    const saved = await post("/browser/save-site-data");
    expect(saved.body.saved.sites).toContain(new URL(appUrl()).origin);
    expect((await call("DELETE", "/browser")).body).toEqual({ ended: true });
    expect((await post("/browser/navigate", { url: appUrl() })).status).toBe(200);
    expect((await post("/browser/extract", { selector: { css: "#who" } })).body.result).toBe(
      "Signed in at example.test since 2024",
    );
  }, 180_000);

  test("a failed sign-in keeps the form: its password field is empty, the error readable, scripts run", async () => {
    await signIn("replace", "replace-bob", "bob");
    const read = await post("/browser/read");
    expect(read.body.title).toBe("Example App 2024");
    expect(read.body.text).toContain("Wrong user or password");
    const script = await post("/browser/script", {
      script:
        "return [document.querySelector('[name=user]').value, document.querySelector('[name=password]').value]",
    });
    expect(script.status).toBe(200);
    expect(script.body.result).toEqual(["bob", ""]);
  }, 120_000);

  test("the app only hides the form: the hidden password field is empty", async () => {
    await signIn("hide", "hide-ada");
    const read = await post("/browser/read");
    expect(read.body.title).toBe("Example App 2024");
    expect(read.body.text).toContain("Signed in at example.test since 2024");
    const script = await post("/browser/script", {
      script: "return document.querySelector('[name=password]').value",
    });
    expect(script.status).toBe(200);
    expect(script.body.result).toBe("");
  }, 120_000);

  test("the app copies the value into a new field after the write answered: the page's own doing, and what the agent reads of it is [hidden]", async () => {
    // The copy is made when the app's fetch answers, after the write emptied its field: what a page of
    // the bound host does with the value is trusted to it (spec §1.17); the redactor still masks the
    // whole value wherever it leaves the server.
    await signIn("copy", "copy-ada");
    const read = await post("/browser/read");
    expect(read.body.title).toBe("Example App 2024");
    expect(JSON.stringify(read.body)).toContain("[hidden]");
    const script = await post("/browser/script", { script: "return document.querySelector('input').value" });
    expect(script.status).toBe(200);
    expect(script.body.result).toBe("[hidden]");
    // A new document of the app holds nothing: it reads as it is.
    expect((await post("/browser/navigate", { url: appUrl("copy", "fresh") })).body.title).toBe(
      "Example App 2024",
    );
  }, 120_000);

  test("no answer held the password", () => {
    expect(answers.join("\n")).not.toContain(PASSWORD);
  });
});
