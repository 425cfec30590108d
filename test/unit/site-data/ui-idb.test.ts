// The Site data tab's IndexedDB: the row counts databases and records, the open row has an
// IndexedDB section per origin with each store's shape and records, hostile names escaped.
import { expect, test } from "bun:test";
import { SiteDataPane, type SiteDataPayload } from "../../../src/site-data/view.tsx";
import { render } from "../../../src/views/parts.tsx";
import { all, type El, one, parseHtml, text } from "../../support/html.ts";

const NOW = 1_790_800_000;
const HOSTILE = "<script>alert(1)</script>";
const ORIGIN = "https://auth.example.test";

const data: SiteDataPayload = {
  saved_at: NOW - 60,
  sites: [
    {
      site: "auth.example.test",
      cookies: 1,
      storage: [
        { origin: ORIGIN, local_storage: 0, session_storage: 0, indexeddb: { databases: 1, records: 2 } },
      ],
    },
  ],
  details: {
    "auth.example.test": {
      site: "auth.example.test",
      cookies: [],
      storage: [
        {
          origin: ORIGIN,
          local_storage: {},
          session_storage: {},
          indexeddb: [
            {
              name: "firebaseLocalStorageDb",
              version: 1,
              stores: [
                {
                  name: "firebaseLocalStorage",
                  key_path: "fbase_key",
                  auto_increment: false,
                  indexes: [{ name: HOSTILE, key_path: "x", unique: true, multi_entry: false }],
                  records: [
                    { key: '"firebase:authUser:k:[DEFAULT]"', value: '{"value":{"uid":"u-1"}}' },
                    { key: '"b"', value: HOSTILE },
                  ],
                },
              ],
            },
          ],
        },
      ],
      own_cookies: [],
      kept_shared: [],
    },
  },
};

test("a row counts its databases and records; the open row shows an IndexedDB section with each store", () => {
  const html = render(SiteDataPane({ workspace: "k", data, rev: "r1", now: NOW, open: null }));
  expect(html).not.toContain(HOSTILE);
  const root = parseHtml(html);
  const section = all(root, "section.section")[0] as El;
  expect(text(section)).toContain("1 cookie · 0 local · 0 session · 1 database, 2 records");
  expect(all(section, "h3").map(text)).toEqual(["Cookies", "Local storage", "Session storage", "IndexedDB"]);
  expect(all(section, "p.muted").map(text)).toEqual(["firebaseLocalStorageDb · version 1"]);
  const lines = all(section, ".line");
  const store = lines.find((l) => text(one(l, "code.key")) === "firebaseLocalStorage") as El;
  expect(text(one(store, ".muted"))).toBe(`key "fbase_key" · index ${HOSTILE} unique · 2 records`);
  const rec = lines.find((l) => text(one(l, "code.key")) === '"firebase:authUser:k:[DEFAULT]"') as El;
  expect(text(one(rec, ".value"))).toBe('{"value":{"uid":"u-1"}}');
});
