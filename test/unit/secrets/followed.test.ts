// The secrets folder followed without a restart, and cheaply: a value typed through the catalogue
// (`get`, the way a bound write or a flow step reads it), or in a file added to the folder, is
// redacted in the very next redaction; a file changed in place that nobody typed once the folder's
// watch tells, or once the recheck time passes; the folder is not read again on every redaction.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SecretCatalogue } from "../../../src/secrets/catalogue.ts";
import { Redactor } from "../../../src/secrets/redactor.ts";

const quiet = { warn: () => undefined };
const HOUR = 3_600_000;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

let writes = 0;
function folder(): { dir: string; put: (name: string, value: string) => void } {
  const dir = mkdtempSync(join(tmpdir(), "sf-followed-"));
  dirs.push(dir);
  const put = (name: string, value: string) => {
    const path = join(dir, `${name}.yaml`);
    writeFileSync(path, `keys:\n  pw: {value: ${value}}\n`);
    // A later mtime, so a rewrite within the file system's time resolution is seen.
    const later = new Date(Date.now() + ++writes * 1000);
    utimesSync(path, later, later);
  };
  return { dir, put };
}

const until = async (ok: () => boolean, ms: number) => {
  for (const end = Date.now() + ms; Date.now() < end && !ok(); ) await Bun.sleep(10);
  return ok();
};

describe("the secrets folder, followed", () => {
  test("a secret typed a moment ago (added, then changed) is redacted in the very next redaction", () => {
    const { dir, put } = folder();
    const cat = new SecretCatalogue({ dirs: [dir], entries: {} }, quiet, HOUR);
    const r = new Redactor(cat);
    cat.close(); // no watch: only the typing path can tell
    expect(r.redact("page says new-value-1234")).toBe("page says new-value-1234");
    put("bank", "new-value-1234");
    expect(cat.get("bank")?.keys.get("pw")).toBe("new-value-1234");
    expect(r.redact("page says new-value-1234")).toBe("page says [hidden]");
    put("bank", "changed-value-5678");
    expect(cat.get("bank")?.keys.get("pw")).toBe("changed-value-5678");
    expect(r.redact("page says changed-value-5678")).toBe("page says [hidden]");
    unlinkSync(join(dir, "bank.yaml"));
    expect(cat.get("bank")).toBeUndefined();
  });

  test("peek is a lookup, as the redactor's read: it sees a file added, what get read, and a file changed in place only once the recheck comes", async () => {
    const { dir: other, put: putOther } = folder();
    const cat = new SecretCatalogue({ dirs: [other], entries: {} }, quiet, HOUR);
    cat.close(); // no watch: the folder's own stamp, get, or the recheck time reads the folder
    putOther("shop", "shop-value-1234");
    expect(cat.peek("shop")?.keys.get("pw")).toBe("shop-value-1234");
    putOther("shop", "shop-value-5678");
    expect(cat.peek("shop")?.keys.get("pw")).toBe("shop-value-1234");
    expect(cat.get("shop")?.keys.get("pw")).toBe("shop-value-5678");
    expect(cat.peek("shop")?.keys.get("pw")).toBe("shop-value-5678");
    putOther("shop", "shop-value-9012");
    expect(cat.peek("shop")?.keys.get("pw")).toBe("shop-value-5678");
    const soon = new SecretCatalogue({ dirs: [other], entries: {} }, quiet, 0);
    soon.close();
    putOther("mail", "mail-value-1234");
    expect(soon.peek("mail")?.keys.get("pw")).toBe("mail-value-1234");
  });

  test("a file nobody typed is redacted once the folder's watch tells", async () => {
    const { dir, put } = folder();
    const cat = new SecretCatalogue({ dirs: [dir], entries: {} }, quiet, HOUR);
    const r = new Redactor(cat);
    expect(r.redact("x watched-value-99")).toBe("x watched-value-99");
    put("seen", "watched-value-99");
    expect(await until(() => r.redact("x watched-value-99") === "x [hidden]", 2000)).toBe(true);
    cat.close();
  });

  test("with no watch, a file nobody typed is redacted once the recheck time passes", async () => {
    const { dir, put } = folder();
    const cat = new SecretCatalogue({ dirs: [dir], entries: {} }, quiet, 50);
    cat.close();
    const r = new Redactor(cat);
    put("later", "rechecked-value-77");
    await Bun.sleep(60);
    expect(r.redact("x rechecked-value-77")).toBe("x [hidden]");
  });

  test("with no watch, a file added is redacted in the very next redaction, a file removed is no longer listed", () => {
    const { dir, put } = folder();
    const cat = new SecretCatalogue({ dirs: [dir], entries: {} }, quiet, HOUR);
    cat.close();
    const r = new Redactor(cat);
    expect(r.redact("x added-value-55")).toBe("x added-value-55");
    put("added", "added-value-55");
    expect(r.redact("x added-value-55")).toBe("x [hidden]");
    unlinkSync(join(dir, "added.yaml"));
    expect(cat.all().map((s) => s.name)).toEqual([]);
  });

  test("between rechecks, with no watch, a redaction does not read the folder again (a file changed in place keeps its old value)", () => {
    const { dir, put } = folder();
    put("one", "kept-value-123");
    const cat = new SecretCatalogue({ dirs: [dir], entries: {} }, quiet, HOUR);
    cat.close();
    const first = cat.all();
    expect(first.map((s) => s.name)).toEqual(["one"]);
    put("one", "other-value-456");
    // Typed through another name: its own files are looked at, not the folder.
    expect(cat.get("other")).toBeUndefined();
    expect(cat.all()).toBe(first);
    expect(new Redactor(cat).redact("kept-value-123")).toBe("[hidden]");
  });

  test("values the redactor is told (a person's, the server's) are redacted from then on; short ones never", () => {
    const r = new Redactor(new SecretCatalogue({ dirs: [], entries: {} }, quiet));
    expect(r.redact("a told-value-42 b short1")).toBe("a told-value-42 b short1");
    r.know(["told-value-42", "short1"]);
    expect(r.redact("a told-value-42 b short1")).toBe("a [hidden] b short1");
    expect(r.carries("x=told-value-42")).toBe(true);
  });
});
