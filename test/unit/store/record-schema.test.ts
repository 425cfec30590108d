// The record is parsed once, where a store reads it: a record an older build wrote (fields missing,
// or of another type) loads with each field's default and keeps the rest; a well-formed one comes
// back as it went in, its snapshot the very object the seal remembers.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyRecord, fromJson, toJson, type WorkspaceRecord } from "../../../src/store/record.ts";
import { deriveKey, SealCodec } from "../../../src/store/seal.ts";
import { SqliteStore } from "../../../src/store/sqlite.ts";

const APP = "https://app.example.test";

/** A record with every field this build writes. */
function full(): WorkspaceRecord {
  return {
    session_id: "s1",
    opened_at: 1_790_900_000.5,
    settings: { browser: "firefox", width: 1280, height: 800, capture: true },
    history: [
      { origin: APP, url: `${APP}/d?x=1`, at: 1_790_900_100 },
      { origin: "https://b.example.test", url: "https://b.example.test/", at: 1_790_900_050 },
    ],
    site_data: {
      cookies: [
        {
          name: "sid",
          value: "v",
          value_type: "string",
          domain: "app.example.test",
          path: "/",
          http_only: true,
          secure: true,
          same_site: "lax",
          expiry: null,
        },
      ],
      origins: { [APP]: { local: { theme: "dark" }, idb: [{ name: "db", version: 1, stores: [] }] } },
      session: { origin: APP, items: { step: "2" } },
      saved_at: 1_790_900_060,
    },
    reopened: { browser: "s1", report: { restored: ["app.example.test"], skipped: [] } },
    focus: { browser: "s1", tab: "t1", frame: null },
  };
}

const DEFAULTS = emptyRecord();
const FIELDS = ["session_id", "opened_at", "settings", "history", "site_data", "reopened"] as const;

describe("reading a record an older build wrote", () => {
  test("each field missing alone: that field reads as its default, every other field as written", () => {
    for (const field of [...FIELDS, "focus"] as const) {
      const { [field]: _gone, ...rest } = full();
      const r = fromJson(JSON.stringify(rest));
      expect(r).toEqual({ ...full(), [field]: field === "focus" ? undefined : DEFAULTS[field] });
      expect(field in r).toBe(field !== "focus");
    }
  });

  test("each field of another type alone: that field reads as its default, the rest as written", () => {
    const wrong: Record<string, unknown> = {
      session_id: 7,
      opened_at: "yesterday",
      settings: "chrome",
      history: { 0: "x" },
      site_data: [1],
      reopened: "yes",
    };
    for (const field of FIELDS) {
      const r = fromJson(JSON.stringify({ ...full(), [field]: wrong[field] }));
      expect(r).toEqual({ ...full(), [field]: DEFAULTS[field] });
    }
    // A focus without its tab is no focus; one with a frame of another type is on the top frame.
    expect(fromJson({ ...full(), focus: { browser: "s1" } }).focus).toBeUndefined();
    expect(fromJson({ ...full(), focus: { browser: "s1", tab: "t1", frame: 3 } }).focus).toEqual({
      browser: "s1",
      tab: "t1",
      frame: null,
    });
  });

  test("a part of a field of another type falls back alone, inside the field", () => {
    const r = fromJson({
      ...full(),
      settings: { browser: "firefox", width: "1280", height: 800, from_another_build: "kept" },
      site_data: {
        cookies: full().site_data.cookies,
        origins: { [APP]: { local: { n: 3, theme: "dark" } }, "https://c.example.test": "junk" },
        session: { origin: 5, items: { step: "2" } },
        saved_at: "noon",
      },
    });
    expect(r.settings).toEqual({ browser: "firefox", height: 800, from_another_build: "kept" });
    expect(r.site_data).toEqual({
      cookies: full().site_data.cookies,
      origins: { [APP]: { local: { n: "3", theme: "dark" } }, "https://c.example.test": { local: {} } },
      session: { origin: "", items: { step: "2" } },
    });
    // Everything else came through.
    expect(r.history).toEqual(full().history);
    expect(r.focus).toEqual(full().focus);
  });
});

describe("a well-formed record", () => {
  test("round-trips through its JSON, and its snapshot is the object given", () => {
    expect(fromJson(toJson(full()))).toEqual(full());
    const given = JSON.parse(toJson(full()));
    // The seal remembers a snapshot by identity: one read unchanged must not be sealed again.
    expect(fromJson(given).site_data).toBe(given.site_data);
  });
});

describe("the store's read is where the record is parsed", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  test("an older row loads with defaults through store.get and store.update, and is not lost", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sf-record-"));
    dirs.push(dir);
    const path = join(dir, "records.sqlite");
    const codec = new SealCodec([deriveKey("k".repeat(32))]);
    const store = new SqliteStore({ path, codec });
    // Another build's row, written straight into the table: no focus, a settings width of another
    // type, a history entry without a time, unsealed site data.
    const raw = new Database(path);
    const old = {
      session_id: "s9",
      opened_at: 5,
      settings: { browser: "chrome", width: "wide" },
      history: [{ origin: APP, url: `${APP}/`, at: 9 }, { origin: APP }],
      site_data: { origins: { [APP]: { local: { a: "1" } } }, saved_at: 4 },
    };
    raw.run("INSERT INTO records (key, value, expires_at) VALUES (?, ?, ?)", [
      "w1",
      JSON.stringify(old),
      Date.now() / 1000 + 3600,
    ]);
    raw.close();
    const got = await store.get("w1");
    expect(got).toEqual({
      session_id: "s9",
      opened_at: 5,
      settings: { browser: "chrome" },
      history: [{ origin: APP, url: `${APP}/`, at: 9 }],
      site_data: { origins: { [APP]: { local: { a: "1" } } }, saved_at: 4 },
      reopened: {},
    });
    // Read again unchanged: the same record, not a second parse.
    expect(await store.get("w1")).toBe(got as WorkspaceRecord);
    const after = await store.update("w1", (cur) => (cur ? { ...cur, opened_at: 6 } : null));
    expect(after?.site_data).toEqual(old.site_data);
    await store.close();
    // Reopened from the file: what the update wrote reads back whole.
    const again = new SqliteStore({ path, codec });
    expect(await again.get("w1")).toEqual({ ...(got as WorkspaceRecord), opened_at: 6 });
    await again.close();
  });
});
