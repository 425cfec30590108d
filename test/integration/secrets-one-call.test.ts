// A secret lives in the page only inside one call (spec §1.17), on the real Grid. A bound write fills,
// submits and empties its fields before it answers, on success and on failure, and the page's own
// mirrors follow; after it nothing in the browser holds the value, so nothing the agent does after
// (keys, copies, selectors, scripts, pictures, reads) is restricted or finds it. A script of the
// agent's that could reach the field's document refuses the write, naming the page.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { NO_SUBMIT, STUCK } from "../../src/browser/write-bound.ts";
import { serveFixture } from "../support/fixtures.ts";
import { type McpClient, mcpClient } from "../support/mcp.ts";
import { secretPages } from "../support/secret-pages.ts";
import { endAll, logLines, startServer, type TestServer } from "../support/server.ts";

const W = "one-call";
const PASSWORD = "correct-horse-77";
const KEY = "sk-live-4f8a92c1d";
const PIN = "4711";
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
    configure: (c) => {
      c.secrets.hold_ms = 400;
      c.secrets.entries = {
        bank: {
          description: "the bank's test user",
          allowed_urls: [`app.example.test`],
          keys: {
            otp: { totp: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP" },
            password: { value: PASSWORD },
            wrong: { value: WRONG },
            key: { value: KEY },
            pin: { value: PIN },
          },
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

  test("a text field the form posts: Back (which restores what a form held) finds it empty", async () => {
    await call("/browser/navigate", { url: bank("/token-post") });
    const res = await call("/browser/write", {
      selector: { label: "API token" },
      secret: { name: "bank", key: "key" },
      submit: true,
    });
    expect(res.status).toBe(200);
    await call("/browser/navigate", { back: true });
    expect(await script("location.pathname")).toBe("/token-post");
    expect(await script("document.getElementById('token').value")).toBe("");
    // The channel is there: the agent's own text is what Back brings back.
    await call("/browser/write", { selector: { label: "API token" }, text: "plain-kept-1", submit: true });
    await call("/browser/navigate", { back: true });
    expect(await script("document.getElementById('token').value")).toBe("plain-kept-1");
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

  test("a one-time code over six boxes: the page sends itself once full (auto), or the boxes all come back empty", async () => {
    await call("/browser/navigate", { url: bank("/otp?auto") });
    const sent = await call("/browser/write", {
      selector: { label: "Code" },
      secret: { name: "bank", key: "otp" },
      submit: "auto",
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ url: bank("/welcome"), title: "Welcome" });
    await call("/browser/navigate", { url: bank("/otp") });
    const held = await call("/browser/write", {
      selector: { label: "Code" },
      secret: { name: "bank", key: "otp" },
      submit: "auto",
    });
    expect(held.status).toBe(200);
    // The code field, its six boxes and the page's hidden copy.
    expect(await script("[...document.querySelectorAll('input')].map((i) => i.value)")).toEqual(
      Array(8).fill(""),
    );
  });

  test("a submit that closes its pop-up (Allow) answers the opener's page", async () => {
    const app = site.url("/opener", "shop.example.test");
    await call("/browser/navigate", { url: app });
    const opened = await call("/browser/interact/click", { selector: { css: "#open" } });
    expect(opened.body.new_tab).toBe(1);
    await call("/browser/switch", { tab: 1 });
    const res = await call("/browser/write", {
      selector: { label: "Password" },
      secret: pw,
      submit: { css: "#allow" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ url: app, title: "App home" });
    // The pop-up's message is a task of the opener's: it may come just after the write answers.
    const state = `new Promise((done) => { const s = () => document.getElementById('state').textContent;
      if (s() === 'Signed in') done(s()); addEventListener('message', () => setTimeout(() => done(s()), 0));
      setTimeout(() => done(s()), 3000); })`;
    expect(await script(state)).toBe("Signed in");
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

const key = { name: "bank", key: "key" };
/** Ctrl+A Ctrl+C in the field that has the focus, then a paste into the ad frame's sink: what the clipboard carried. */
async function copyIntoAd(): Promise<string> {
  await call("/browser/interact/press", { keys: "Control+a Control+c" });
  await call("/browser/switch", { frame: { css: "#adframe" } });
  await call("/browser/interact/press", {
    selector: { css: "#sink" },
    keys: "Control+a Backspace Control+v",
  });
  const got = await call("/browser/extract", { selector: { css: "#sink" }, get: "value" });
  await call("/browser/switch", { frame: null });
  return String(got.body.result ?? "");
}

describe("a page that stops answering after the submit (fail closed)", () => {
  const B = "one-call-busy";
  test("the write is a 503 and the browser is ended with the value in it; the next call opens a fresh one", async () => {
    await server.call("POST", "/browser/navigate", { url: bank("/busy") }, B);
    const res = await server.call(
      "POST",
      "/browser/write",
      { fields: [{ selector: { label: "Password" }, secret: pw }], submit: true },
      B,
    );
    bodies.push(JSON.stringify(res.body));
    expect(res.status).toBe(503);
    expect(res.body.error).toBe(STUCK);
    // The next call answers at once from a fresh browser on the same page, the field empty.
    const next = await server.call(
      "POST",
      "/browser/script",
      { script: "document.getElementById('pw').value" },
      B,
    );
    expect(next.status).toBe(200);
    expect(next.body.result).toBe("");
    await endAll(server, [B]);
  }, 90_000);

  test("the opposite: a page that answers late but answers (a slow submit handler) is an ordinary success", async () => {
    await call("/browser/navigate", { url: bank("/slow") });
    const res = await call("/browser/write", {
      fields: [{ selector: { label: "Password" }, secret: pw }],
      submit: true,
    });
    expect(res.status).toBe(200);
    expect(await script("document.getElementById('pw').value")).toBe("");
    expect(await script("document.getElementById('state').textContent")).toBe("sent");
  }, 60_000);
});

describe("after the call nothing in the page holds the value (the fourth attack finds nothing)", () => {
  test("keys copy what the focused field holds into another site's frame: the agent's text, never the secret", async () => {
    await call("/browser/navigate", { url: bank("/token") });
    // The channel works: the agent's own text in the field is copied into the ad's frame.
    await call("/browser/write", { selector: { label: "API token" }, text: "plain-visible-text" });
    expect(await copyIntoAd()).toBe("plain-visible-text");
    await call("/browser/navigate", { url: bank("/token") });
    const res = await call("/browser/write", {
      selector: { label: "API token" },
      secret: key,
      submit: { css: "#save" },
    });
    expect(res.status).toBe(200);
    await call("/browser/interact/focus", { selector: { label: "API token" } });
    const pasted = await copyIntoAd();
    expect(pasted).not.toContain(KEY.slice(0, 6));
    expect(await script("document.getElementById('token').value")).toBe("");
  });

  test("while the value is in, the field is painted without it in the page itself (the live screen, captures, video)", async () => {
    await call("/browser/navigate", { url: bank("/token") });
    await call("/browser/write", { selector: { label: "API token" }, secret: key, submit: { css: "#save" } });
    const seen = (await script("window.seen")) as { security: string; color: string; len: number }[];
    const filled = seen.filter((e) => e.len > 0);
    expect(filled.length).toBeGreaterThan(0);
    for (const e of filled) {
      expect(e.security).toBe("disc");
      expect(e.color).toBe("rgba(0, 0, 0, 0)");
    }
    // And put back after: the agent's own text shows.
    await call("/browser/write", { selector: { label: "API token" }, text: "shown" });
    expect(((await script("window.seen")) as { security: string }[]).at(-1)?.security).toBe("none");
  });

  test("a framing page that moves the focus into the bank's frame on Control gets nothing", async () => {
    await call("/browser/navigate", { url: site.url("/framer", "evil.example.test") });
    await call("/browser/switch", { frame: { css: "#bank" } });
    const res = await call("/browser/write", {
      selector: { label: "API token" },
      secret: key,
      submit: { css: "#save" },
    });
    expect(res.status).toBe(200);
    await call("/browser/switch", { frame: null });
    await call("/browser/interact/press", { selector: { css: "#sink" }, keys: "Control+a Control+c" });
    await call("/browser/interact/press", { selector: { css: "#sink" }, keys: "Control+v" });
    const got = await call("/browser/extract", { selector: { css: "#sink" }, get: "value" });
    expect(JSON.stringify(got.body)).not.toContain(KEY.slice(0, 6));
  });

  test("a selector that matches by value finds nothing: the value attribute followed the emptying", async () => {
    await call("/browser/navigate", { url: bank("/spa") });
    await call("/browser/write", {
      fields: [
        { selector: { label: "Email" }, text: "ada@example.test" },
        { selector: { label: "Password" }, secret: { name: "bank", key: "wrong" } },
      ],
      submit: true,
    });
    for (const css of [`[*|value^="${WRONG[0]}"]`, `[/**/value^="${WRONG[0]}"]`, `input[value*="horse"]`]) {
      const got = await call("/browser/extract", { selector: { css }, timeout: 0.2 });
      expect(got.status).toBe(400);
      expect(got.body.error).toContain("nothing matched");
    }
  });

  test("the agent's own text is never masked: every 4-character run, and a 4-digit PIN, read back as written", async () => {
    await call("/browser/navigate", { url: bank("/mirrors") });
    await call("/browser/write", { selector: { label: "API key" }, secret: key, submit: { css: "#save" } });
    for (let i = 0; i + 4 <= KEY.length; i += 3) {
      const run = KEY.slice(i, i + 4);
      await call("/browser/write", { selector: { label: "Next" }, text: run });
      const got = await call("/browser/extract", { selector: { label: "Next" }, get: "value" });
      expect(JSON.stringify(got.body)).toContain(`"${run}"`);
    }
    await call("/browser/write", { selector: { label: "Next" }, text: PIN });
    expect(
      JSON.stringify((await call("/browser/extract", { selector: { label: "Next" }, get: "value" })).body),
    ).toContain(`"${PIN}"`);
    // Even the whole value, written by the agent itself, reads back as written: no oracle.
    await call("/browser/write", { selector: { label: "Next" }, text: KEY });
    const whole = await call("/browser/extract", { selector: { label: "Next" }, get: "value" });
    expect(whole.status).toBe(200);
    bodies.pop(); // the agent wrote it itself: not a value the server gave away
    await call("/browser/write", { selector: { label: "Next" }, text: "" });
  });

  test("the page's copies go too: a hidden copy, and the console says nothing of the value", async () => {
    await call("/browser/navigate", { url: bank("/mirrors") });
    const res = await call("/browser/write", {
      selector: { label: "API key" },
      secret: key,
      submit: { css: "#save" },
    });
    expect(res.status).toBe(200);
    expect(
      await script("[document.getElementById('key').value, document.getElementById('keep').value]"),
    ).toEqual(["", ""]);
    const logs = await call("/browser/logs", { kind: "console" });
    const typed = (logs.body.entries as { text: string }[]).filter(
      (e) => e.text.startsWith("typed") || e.text === "[withheld]",
    );
    expect(typed.length).toBeGreaterThan(0);
    for (const e of typed) expect(e.text).toBe("[withheld]");
    // What the page logs after the call is its own again.
    await script("console.log('after the write')");
    const after = await call("/browser/logs", { kind: "console" });
    expect(JSON.stringify(after.body)).toContain("after the write");
  });

  test("a field in a shadow root: nothing of it in a picture or a PDF after", async () => {
    await call("/browser/navigate", { url: bank("/mirrors") });
    const res = await call("/browser/write", {
      selector: { label: "Shadow key" },
      secret: key,
      submit: { css: "#save" },
    });
    expect(res.status).toBe(200);
    expect(await script("document.getElementById('host').shadowRoot.getElementById('sk').value")).toBe("");
    const pdf = await call("/browser/print");
    expect(pdf.status).toBe(200);
    const path = `${server.dataDir}/sessions/${W}/files/${pdf.body.file.name}`;
    const text = Bun.spawnSync(["pdftotext", path, "-"]).stdout.toString();
    expect(text).toContain("Profile");
    expect(text).not.toContain(KEY);
  });

  test("a rich text field: a 'nothing matched' hint quotes nothing of it; a growing field's box is the empty one's", async () => {
    await call("/browser/navigate", { url: bank("/mirrors") });
    const empty = (await call("/browser/extract", { selector: { label: "API key" }, get: "box" })).body;
    await call("/browser/write", { selector: { label: "Note" }, secret: key, submit: { css: "#save" } });
    await call("/browser/write", { selector: { label: "API key" }, secret: key, submit: { css: "#save" } });
    expect((await call("/browser/extract", { selector: { label: "API key" }, get: "box" })).body).toEqual(
      empty,
    );
    const miss = await call("/browser/interact/click", {
      selector: { text: "no such words", exact: false },
      timeout: 0.3,
    });
    expect(miss.status).toBe(400);
    for (let i = 0; i + 5 <= KEY.length; i++) expect(miss.body.error).not.toContain(KEY.slice(i, i + 5));
  });

  test("the agent's plain write into the next field right after is its own text, not a copy of the secret", async () => {
    await call("/browser/navigate", { url: bank("/mirrors") });
    await call("/browser/write", { selector: { label: "API key" }, secret: key, submit: { css: "#save" } });
    await call("/browser/write", { selector: { label: "Next" }, text: "next-text-1234" });
    const got = await call("/browser/extract", { selector: { label: "Next" }, get: "value" });
    expect(JSON.stringify(got.body)).toContain('"next-text-1234"');
  });

  test("a dialog the page opens during the call is closed so the field can be emptied, and said", async () => {
    await call("/browser/navigate", { url: bank("/alerts") });
    const res = await call("/browser/write", {
      selector: { label: "Password" },
      secret: pw,
      submit: { css: "#go" },
    });
    expect(res.status).toBe(200);
    expect(res.body.closed_dialog).toBe("Wrong password");
    expect(await script("document.getElementById('pw').value")).toBe("");
  });
});

describe("a script of the agent's that could reach the field refuses the write, naming the page", () => {
  test("a script that framed the sign-in on the home page", async () => {
    await call("/browser/navigate", { url: bank("/") });
    await script(
      "const f = document.createElement('iframe'); f.id = 'login'; f.src = '/signin'; document.body.append(f); f.onload = () => f.contentDocument.getElementById('pw').addEventListener('input', (e) => { window.stolen = e.target.value; }); 1",
    );
    await call("/browser/assert", { selector: { css: "#login" } });
    await Bun.sleep(300);
    await call("/browser/switch", { frame: { css: "#login" } });
    const res = await call("/browser/write", { selector: { label: "Password" }, secret: pw, submit: true });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("a script of yours");
    await call("/browser/switch", { frame: null });
    expect(await script("window.stolen ?? null")).toBeNull();
  });

  test("a pop-up the script opened, with code planted before its opener moved on", async () => {
    await call("/browser/navigate", { url: bank("/") });
    await script(
      "window.w = open('/signin'); w.addEventListener('load', () => w.eval(\"document.getElementById('pw').addEventListener('input', (e) => { localStorage.stolen = e.target.value; })\")); 1",
    );
    await Bun.sleep(500);
    // The opener goes to a new page; the pop-up was alive beside the scripted page, and keeps its mark.
    await call("/browser/navigate", { url: bank("/step1") });
    const tabs = await call("/browser/switch", { tab: "list" });
    const popup = (tabs.body.tabs as { index: number; url: string }[]).find((t) => t.url.endsWith("/signin"));
    expect(popup).toBeDefined();
    await call("/browser/switch", { tab: popup!.index });
    const res = await call("/browser/write", { selector: { label: "Password" }, secret: pw, submit: true });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("a script of yours");
    await call("/browser/switch", { tab: "close" });
  });

  test("the same tab loaded again is an ordinary page: the sign-in goes through", async () => {
    await call("/browser/navigate", { url: bank("/") });
    await script("document.title");
    const open = await call("/browser/switch", { tab: "list" });
    expect((open.body.tabs as unknown[]).length).toBe(1);
    await call("/browser/navigate", { url: bank("/signin") });
    const res = await call("/browser/write", {
      fields: [
        { selector: { label: "Username" }, text: "ada" },
        { selector: { label: "Password" }, secret: pw },
      ],
      submit: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.title).toBe("Welcome");
  });
});

describe("a sign-in kept from the timeline as a flow", () => {
  test("replays in a new browser: fields by ref, the secret by name, the form sent", async () => {
    await call("/browser/navigate", { url: bank("/signin") });
    const elements = (await call("/browser/read")).body.elements as { name: string; ref: string }[];
    const ref = (name: string) => elements.find((e) => e.name === name)?.ref;
    const user = ref("Username");
    const pwRef = ref("Password");
    expect(user && pwRef).toBeTruthy();
    const res = await call("/browser/write", {
      fields: [
        { selector: { ref: user }, text: "ada" },
        { selector: { ref: pwRef }, secret: pw },
      ],
      submit: true,
    });
    expect(res.body.title).toBe("Welcome");
    const saved = await server.call("PUT", "/flows/bank-sign-in", { from_timeline: { last: 3 } }, W);
    expect(saved.status).toBeLessThan(300);
    expect(saved.body.yaml).not.toContain(PASSWORD);
    expect(saved.body.yaml).not.toMatch(/\bref\b/);
    await server.call("DELETE", "/browser", undefined, W);
    const run = await call("/flows/bank-sign-in/run");
    expect(run.status).toBe(200);
    expect(run.body.status).toBe("ok");
    expect(await script("document.querySelector('h1').textContent")).toBe("Welcome, ada");
  });
});
