import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AppError, messageOf } from "../../../src/errors.ts";
import { Log } from "../../../src/log.ts";
import { matchingSecrets, SecretCatalogue } from "../../../src/secrets/catalogue.ts";
import { type SecretRef, secretValue } from "../../../src/secrets/field.ts";
import { Redactor } from "../../../src/secrets/redactor.ts";

const lines: string[] = [];
const log = new Log("debug", (line) => lines.push(line));

const PASSWORD = "p@ss word+1/é";

/** The value for ref at `where`, the secret looked up as a bound write does. */
const valueIn = (services: { secrets: SecretCatalogue }, ref: SecretRef, where: string) =>
  secretValue(services.secrets.get(ref.name), ref, where);

function servicesWith(catalogue: SecretCatalogue): { secrets: SecretCatalogue } {
  return { secrets: catalogue };
}

const entries = {
  app: {
    description: "the app's test user",
    allowed_urls: ["https://app.example.test/login"],
    keys: { username: { value: "alice-user" }, password: { value: PASSWORD } },
  },
  anywhere: { keys: { token: { value: "tok-anywhere-123" } } },
  bare: { allowed_urls: ["shop.example.test"], keys: { pin: { value: "0123" } } },
};

function refused(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error("expected a refusal");
}

describe("secretValue", () => {
  const catalogue = new SecretCatalogue({ dirs: [], entries });
  const services = servicesWith(catalogue);

  test("gives the value on an allowed place: a URL's scheme, host and port, any path; a bare host on any", () => {
    expect(valueIn(services, { name: "app", key: "password" }, "https://app.example.test/login")).toBe(
      PASSWORD,
    );
    expect(valueIn(services, { name: "app", key: "username" }, "https://APP.example.test")).toBe(
      "alice-user",
    );
    expect(valueIn(services, { name: "bare", key: "pin" }, "https://shop.example.test/")).toBe("0123");
    expect(valueIn(services, { name: "bare", key: "pin" }, "http://shop.example.test:18801")).toBe("0123");
  });

  test("an item with a scheme refuses another scheme or port on its host", () => {
    for (const url of ["http://app.example.test/login", "https://app.example.test:8443/login"]) {
      const err = refused(() => valueIn(services, { name: "app", key: "password" }, url));
      expect(err.message).toContain("may not be typed");
      expect(err.message).not.toContain(PASSWORD);
    }
  });

  test("an unleashed secret may be typed anywhere, even on a page without a host", () => {
    for (const url of ["https://evil.example.test/", "about:blank", "data:text/html,x"]) {
      expect(valueIn(services, { name: "anywhere", key: "token" }, url)).toBe("tok-anywhere-123");
    }
  });

  test("a subdomain, a parent domain or another host is refused, naming the host and the secret", () => {
    for (const [url, host] of [
      ["https://sub.app.example.test/login", "sub.app.example.test"],
      ["https://example.test/login", "example.test"],
      ["https://app.example.test.evil.test/", "app.example.test.evil.test"],
    ] as const) {
      const err = refused(() => valueIn(services, { name: "app", key: "password" }, url));
      expect(err.status).toBe(400);
      expect(err.message).toContain(host);
      expect(err.message).toContain("secret app");
      expect(err.message).toContain("app.example.test");
      expect(err.message).not.toContain(PASSWORD);
    }
    const blank = refused(() => valueIn(services, { name: "app", key: "password" }, "about:blank"));
    expect(blank.message).toContain("without a host");
  });

  test("an unknown secret or key is a 400 that says where to look", () => {
    const none = refused(() => valueIn(services, { name: "nope", key: "password" }, "https://x.test/"));
    expect(none.status).toBe(400);
    expect(none.message).toContain("no secret named nope");
    expect(none.message).toContain("GET /secrets");
    const key = refused(() => valueIn(services, { name: "app", key: "pin" }, "https://app.example.test/"));
    expect(key.message).toContain("no key pin");
    expect(key.message).toContain("username, password");
  });

  test("the redactor hides every value of 8 characters or more in any encoding, a longer one whole; shorter ones are left (and warned of)", () => {
    const warned: string[] = [];
    const cat = new SecretCatalogue(
      {
        dirs: [],
        entries: {
          a: { keys: { short: { value: "abc1" }, long: { value: "abc1-xyz" }, tiny: { value: "zz" } } },
        },
      },
      { warn: (m: string) => warned.push(m) },
    );
    expect(new Redactor(cat).redact("/x?a=abc1-xyz&b=abc1&c=abc1%2Dxyz&d=zz")).toBe(
      "/x?a=[hidden]&b=abc1&c=[hidden]&d=zz",
    );
    expect(warned).toHaveLength(2);
    expect(warned[0]).toContain("secret a key short is shorter than 8 characters");
    expect(warned.join("\n")).not.toContain("abc1");
  });

  test("every value is hidden from log lines once an app's redactor is added", () => {
    const redactor = new Redactor(new SecretCatalogue({ dirs: [], entries }));
    const stop = log.addRedaction(redactor.redact);
    try {
      log.warn(`typed ${PASSWORD} and tok-anywhere-123`);
      expect(lines.at(-1)).toEndWith("typed [hidden] and [hidden]");
    } finally {
      stop();
    }
    expect(redactor.redact(messageOf(new Error("boom alice-user")))).toBe("boom [hidden]");
  });
});

describe("the catalogue", () => {
  const dir = mkdtempSync(join(tmpdir(), "sf-secrets-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => writeFileSync(join(dir, name), text);
  const touchLater = (name: string) => {
    const t = new Date(Date.now() + 5000);
    utimesSync(join(dir, name), t, t);
  };

  test("lists files and entries without a value; sees additions, changes and removals", () => {
    file(
      "mail.yaml",
      "description: the mail account\nallowed_urls:\n  - https://mail.example.test/\nkeys:\n  address: {value: mailbox-value-1}\n",
    );
    file("notes.txt", "not a secret");
    mkdirSync(join(dir, "folder.yaml"));
    const cat = new SecretCatalogue({ dirs: [dir], entries: { anywhere: entries.anywhere } }, log);
    const rev0 = cat.rev;
    expect(cat.list()).toEqual([
      { name: "anywhere", description: "", keys: ["token"], allowed_urls: [], restricted: false },
      {
        name: "mail",
        description: "the mail account",
        keys: ["address"],
        allowed_urls: ["https://mail.example.test/"],
        restricted: true,
      },
    ]);
    expect(cat.rev).toBe(rev0);

    file("bank.yml", "keys:\n  pin: {value: bank-pin-value}\n");
    expect(cat.list().map((s) => s.name)).toEqual(["anywhere", "bank", "mail"]);
    const rev1 = cat.rev;
    expect(rev1).not.toBe(rev0);

    file(
      "mail.yaml",
      "description: changed\nkeys:\n  address: {value: mailbox-value-2}\n  password: {value: mailbox-pw-2}\n",
    );
    touchLater("mail.yaml");
    expect(cat.get("mail")?.keys.get("password")).toBe("mailbox-pw-2");
    expect(cat.list().find((s) => s.name === "mail")).toMatchObject({
      description: "changed",
      keys: ["address", "password"],
      restricted: false,
    });
    expect(cat.rev).not.toBe(rev1);

    unlinkSync(join(dir, "bank.yml"));
    expect(cat.get("bank")).toBeUndefined();
    expect(JSON.stringify(cat.list())).not.toMatch(/mailbox-|bank-pin|tok-anywhere/);
  });

  test("a broken file is skipped with a warning naming the file, never its content", () => {
    lines.length = 0;
    file("broken.yaml", "keys:\n  password: {value: leaked-by-parse\n");
    file("numeric.yaml", "keys:\n  pin: {value: 1234}\n");
    file("badurl.yaml", "allowed_urls: ['http://[bad']\nkeys:\n  k: {value: badurl-value}\n");
    file("extra.yaml", "keys:\n  k: {value: extra-value}\nwhat: leaked-field-value\n");
    const cat = new SecretCatalogue({ dirs: [dir, join(dir, "missing")], entries: {} }, log);
    const names = cat.list().map((s) => s.name);
    expect(names).not.toContain("broken");
    expect(names).not.toContain("numeric");
    expect(names).not.toContain("badurl");
    expect(names).not.toContain("extra");
    expect(names).toContain("mail");
    const said = lines.join("\n");
    for (const f of ["broken.yaml", "numeric.yaml", "badurl.yaml", "extra.yaml"]) {
      expect(said).toContain(join(dir, f));
    }
    expect(said).toContain("not valid YAML");
    expect(said).toContain("quote it");
    expect(said).toContain(`${join(dir, "missing")} cannot be read`);
    expect(said).not.toMatch(/leaked|1234|badurl-value|extra-value/);
    const warned = lines.length;
    cat.list();
    expect(lines.length).toBe(warned);
  });

  test("a file and an entry with the same name: the entry wins and the file is named in a warning", () => {
    lines.length = 0;
    const cat = new SecretCatalogue({ dirs: [dir], entries: { mail: entries.anywhere } }, log);
    expect(cat.get("mail")?.keys.has("token")).toBe(true);
    expect(lines.join("\n")).toContain(
      `${join(dir, "mail.yaml")} skipped: a secret named mail already comes from`,
    );
  });

  test("matchingSecrets: exact hosts only, unleashed secrets never", () => {
    const cat = new SecretCatalogue({ dirs: [], entries });
    expect(matchingSecrets(cat, "app.example.test")).toEqual([
      { name: "app", description: "the app's test user", keys: ["username", "password"] },
    ]);
    expect(matchingSecrets(cat, "shop.example.test").map((s) => s.name)).toEqual(["bare"]);
    expect(matchingSecrets(cat, "sub.app.example.test")).toEqual([]);
    expect(matchingSecrets(cat, "evil.example.test")).toEqual([]);
  });

  test("a *.host item stands for the host and every name under it, as the navigation policy reads it", () => {
    const cat = new SecretCatalogue({
      dirs: [],
      entries: { wild: { allowed_urls: ["*.example.test"], keys: { k: { value: "wild-value-1" } } } },
    });
    const svc = servicesWith(cat);
    for (const at of ["https://app.example.test/", "http://a.b.example.test:8080/x", "https://example.test/"])
      expect(valueIn(svc, { name: "wild", key: "k" }, at)).toBe("wild-value-1");
    expect(() => valueIn(svc, { name: "wild", key: "k" }, "https://badexample.test/")).toThrow(
      "may not be typed",
    );
    expect(matchingSecrets(cat, "shop.example.test").map((s) => s.name)).toEqual(["wild"]);
  });
});

describe("allowed_urls globs other than *.host", () => {
  test("in secrets.entries: refused at start, naming the secret and the item", () => {
    for (const item of ["app*.example.test", "https://app.example.test/login*", "*example.test", "*"]) {
      const start = () =>
        new SecretCatalogue({
          dirs: [],
          entries: { g: { allowed_urls: [item], keys: { k: { value: "v-1" } } } },
        });
      expect(start).toThrow(`secrets.entries.g.allowed_urls item 1: ${item} is a glob that is not supported`);
    }
  });

  test("in a secret's file: the file is skipped, the warning names its line", () => {
    const dir = mkdtempSync(join(tmpdir(), "sf-globs-"));
    writeFileSync(
      join(dir, "g.yaml"),
      "description: x\nallowed_urls:\n  - app.example.test\n  - 'shop*.example.test'\nkeys:\n  k: {value: glob-value}\n",
    );
    lines.length = 0;
    const cat = new SecretCatalogue({ dirs: [dir], entries: {} }, log);
    expect(cat.get("g")).toBeUndefined();
    expect(lines.join("\n")).toContain(
      `${join(dir, "g.yaml")} skipped: line 4: allowed_urls item 2: shop*.example.test is a glob that is not supported`,
    );
    expect(lines.join("\n")).not.toContain("glob-value");
    rmSync(dir, { recursive: true, force: true });
  });
});
