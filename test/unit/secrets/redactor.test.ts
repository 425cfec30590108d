// The one redactor: each secret value, whole, in any encoding a page or a URL gives it, case
// aside; never a stretch of ordinary text that merely shares a word with a password.
import { describe, expect, test } from "bun:test";
import { PNG } from "../../../src/actions/action.ts";
import { OUTLINE } from "../../../src/browser/read.ts";
import { defaultConfig } from "../../../src/config/schema.ts";
import { PLAIN_CLOSE, PLAIN_OPEN } from "../../../src/in-page/plain.ts";
import { SecretCatalogue } from "../../../src/secrets/catalogue.ts";
import { base64Cores, Redactor } from "../../../src/secrets/redactor.ts";

const PASSWORD = "hunter2-Example!";
const OTHER = "Welcome2024!";
const KEY = "AKLIA7Q2Z9XW4PLM0RTS";
const PHRASE = "correct horse 2024";

function redactor(values: string[] = [PASSWORD, OTHER, KEY, PHRASE]): Redactor {
  const keys = Object.fromEntries(values.map((v, i) => [`k${i}`, { value: v }]));
  return new Redactor(new SecretCatalogue({ ...defaultConfig().secrets, entries: { s: { keys } } }));
}

describe("ordinary text is left alone", () => {
  test("words and years a password shares with a URL, a title or a host name", () => {
    const r = redactor();
    for (const text of [
      "http://shop.example.test/checkout",
      "Example Domain — Welcome to 2024",
      "refused on app.example.test (https://app.example.test)",
      "hunter2 is a meme; come back in 2024",
      "Welcome2024 without the bang is another string",
    ])
      expect(r.redact(text)).toBe(text);
    expect(r.carries("http://shop.example.test/?q=2024")).toBe(false);
  });
});

describe("a value comes back in no encoding", () => {
  const r = redactor();
  const cases: [string, string][] = [
    ["raw", `pw=${PASSWORD}&x=1`],
    ["percent", `pw=${encodeURIComponent(PASSWORD)}`],
    ["percent, lower-case hex", `pw=${encodeURIComponent(PASSWORD).toLowerCase()}`],
    ["form", `a=1&${new URLSearchParams({ p: PHRASE }).toString()}`],
    ["JSON", JSON.stringify({ password: `x"${PASSWORD}` })],
    ["JSON \\u escapes", '{"p":"\\u0068unter2-Example\\u0021"}'],
    ["HTML entities", `<input value="hunter2&#45;Example&#x21;">`],
    ["upper-cased", `?q=${PASSWORD.toUpperCase()}`],
    ["lower-cased in a subdomain", `https://${KEY.toLowerCase()}.evil.example.test/`],
    ["base64", btoa(PASSWORD)],
    ["base64 inside a longer payload", btoa(`user=alice&pw=${PASSWORD}&remember=1`)],
    ["base64url", Buffer.from(`k:${KEY}`).toString("base64url")],
  ];
  for (const [name, text] of cases) {
    test(name, () => {
      const out = r.redact(text);
      expect(out).toContain("[hidden]");
      expect(out.toLowerCase()).not.toContain(PASSWORD.toLowerCase());
      expect(out.toLowerCase()).not.toContain(KEY.toLowerCase());
      expect(out).not.toContain("horse");
      expect(r.carries(text)).toBe(true);
    });
  }

  test("base64 cores: one per alignment, each long enough to mean something", () => {
    const cores = base64Cores(PASSWORD);
    for (const lead of ["", "a", "ab", "abc", "abcd"])
      expect(cores.some((c) => btoa(`${lead}${PASSWORD}tail`).includes(c))).toBe(true);
  });

  test("credentials in URLs and Grid ids go too", () => {
    expect(r.redact("http://user:pw@grid.example.test:4444 session 0123456789abcdef0123456789abcdef")).toBe(
      "http://grid.example.test:4444 session [browser]",
    );
  });
});

describe("deep", () => {
  test("every string of a result, the MCP parts on symbol keys too; a picture's bytes kept", () => {
    const r = redactor();
    const raw = Object.assign(
      { url: "https://a.example.test/", title: `t ${PASSWORD}`, list: [{ text: OTHER }] },
      { [OUTLINE]: { entries: [{ name: `x ${KEY}` }] }, [PNG]: btoa(PASSWORD) },
    );
    const out = r.redactDeep(raw, (k) => k === PNG);
    expect(out.url).toBe("https://a.example.test/");
    expect(out.title).toBe("t [hidden]");
    expect(out.list).toEqual([{ text: "[hidden]" }]);
    expect(out[OUTLINE]).toEqual({ entries: [{ name: "x [hidden]" }] });
    expect(out[PNG]).toBe(btoa(PASSWORD));
  });
});

describe("never an oracle (spec §1.17)", () => {
  test("runs of a value, and values shorter than 8 characters, are never masked", () => {
    const r = redactor([PASSWORD, "4711", "short7!"]);
    // Every 4-character run of the password, as an agent would write and read them back.
    for (let i = 0; i + 4 <= PASSWORD.length; i++) {
      const run = PASSWORD.slice(i, i + 4);
      expect(r.redact(`q=${run}`)).toBe(`q=${run}`);
    }
    expect(r.redact("pin 4711 and short7!")).toBe("pin 4711 and short7!");
    expect(r.carries("pin 4711")).toBe(false);
    // The whole value still goes.
    expect(r.redact(`pw=${PASSWORD}`)).toBe("pw=[hidden]");
  });

  test("the agent's own text, between the page library's marks, is never masked; the marks go", () => {
    const r = redactor();
    const own = `${PLAIN_OPEN}${PASSWORD}${PLAIN_CLOSE}`;
    expect(r.redact(`value: ${own}; page says ${PASSWORD}`)).toBe(`value: ${PASSWORD}; page says [hidden]`);
    expect(r.redactDeep({ value: own })).toEqual({ value: PASSWORD });
    expect(r.redact(`${PLAIN_OPEN}plain${PLAIN_CLOSE}`)).toBe("plain");
  });

  test("a one-time code is never masked: it is no catalogue value", () => {
    const r = new Redactor(
      new SecretCatalogue({
        ...defaultConfig().secrets,
        entries: { s: { keys: { otp: { totp: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP" } } } },
      }),
    );
    expect(r.redact("code 123456 and 654321")).toBe("code 123456 and 654321");
    expect(r.redact("seed JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP")).toBe("seed [hidden]");
  });
});

describe("what leaves a page call, in one pass", () => {
  test("the value redacted and the pages that carry a value named; ordinary pages not", () => {
    const r = redactor();
    const carrying = `https://app.example.test/?pw=${encodeURIComponent(PASSWORD)}`;
    const plain = "https://app.example.test/ok";
    const out = r.leaving({ url: carrying, title: `for ${OTHER}` }, [carrying, null, plain, carrying]);
    expect(out.value).toEqual({ url: "https://app.example.test/?pw=[hidden]", title: "for [hidden]" });
    expect([...out.carrying]).toEqual([carrying]);
  });
});
