import { describe, expect, test } from "bun:test";
import {
  at,
  emptyRecord,
  fromJson,
  HISTORY_CAP,
  originOf,
  recordUrl,
  toJson,
  type WorkspaceRecord,
} from "../../../src/store/record.ts";

const DAY = 86_400;
const A = "https://a.example.test";
const B = "https://b.example.test";

const urls = (r: WorkspaceRecord) => r.history.map((v) => v.url);
const origins = (r: WorkspaceRecord) => r.history.map((v) => v.origin);

describe("the history on the record", () => {
  test("a page bumps its origin to the top with its url and time", () => {
    let r = at(emptyRecord(), [`${A}/1`], 10);
    r = at(r, [`${B}/`], 20);
    r = at(r, [`${A}/2`], 30);
    expect(r.history).toEqual([
      { origin: A, url: `${A}/2`, at: 30 },
      { origin: B, url: `${B}/`, at: 20 },
    ]);
  });

  test("the current url is the top of the history", () => {
    expect(recordUrl(emptyRecord())).toBe("");
    expect(recordUrl(at(emptyRecord(), [`${A}/page?x=1#y`], 5))).toBe(`${A}/page?x=1#y`);
  });

  test("a page with no origin or a withheld url records nothing", () => {
    const before = at(emptyRecord(), [`${A}/1`, `${B}/2`], 100);
    for (const url of [null, undefined, "", "about:blank", "data:text/html,hi", "not a url"]) {
      expect(at(before, [url], 101).history).toEqual(before.history);
    }
  });

  test("only http and https pages enter the history", () => {
    const before = at(emptyRecord(), [`${A}/1`], 100);
    for (const url of [
      "chrome://settings",
      "file:///etc/hosts",
      "ftp://files.example.test/x",
      "javascript:1",
    ]) {
      expect(at(before, [url], 101).history).toEqual(before.history);
    }
    expect(origins(at(before, ["http://plain.example.test/"], 101))).toEqual([
      "http://plain.example.test",
      A,
    ]);
  });

  test("several pages are recorded in order", () => {
    const r = at(emptyRecord(), ["https://a.test/", "https://b.test/", "https://a.test/z"], 50);
    expect(urls(r)).toEqual(["https://a.test/z", "https://b.test/"]);
    expect(r.history.every((v) => v.at === 50)).toBe(true);
  });

  test("an entry older than the ttl goes but the top one stays", () => {
    let r = at(emptyRecord(), ["https://old.test/"], 0);
    r = at(r, ["https://mid.test/"], 10);
    r = at(r, [null], DAY + 20, DAY);
    expect(urls(r)).toEqual(["https://mid.test/"]);
  });

  test("an entry exactly at the ttl stays, one second older goes", () => {
    let r = at(emptyRecord(), ["https://old.test/"], 0);
    r = at(r, ["https://new.test/"], 100);
    expect(urls(at(r, [null], DAY, DAY))).toEqual(["https://new.test/", "https://old.test/"]);
    expect(urls(at(r, [null], DAY + 1, DAY))).toEqual(["https://new.test/"]);
  });

  test("at most a hundred entries and the oldest goes first", () => {
    let r = emptyRecord();
    for (let i = 0; i < 105; i++) r = at(r, [`https://h${i}.test/`], 1000 + i);
    expect(r.history).toHaveLength(HISTORY_CAP);
    expect(r.history[0]!.url).toBe("https://h104.test/");
    expect(r.history.at(-1)!.url).toBe("https://h5.test/");
  });

  test("below the top the query and fragment are stripped; the top keeps its whole url", () => {
    let r = at(emptyRecord(), [`${A}/callback?code=s3cret&state=x#frag`], 10);
    expect(recordUrl(r)).toBe(`${A}/callback?code=s3cret&state=x#frag`);
    r = at(r, [`${B}/reset?token=t0ken#top`], 20);
    expect(urls(r)).toEqual([`${B}/reset?token=t0ken#top`, `${A}/callback`]);
    // Stripped in the same call as well as in a later one.
    const one = at(emptyRecord(), [`${A}/p?q=1`, `${B}/r#s`], 30);
    expect(urls(one)).toEqual([`${B}/r#s`, `${A}/p`]);
    expect(JSON.stringify(one)).not.toContain("q=1");
  });

  test("origins are what location.origin says: lowercase, default port dropped, IPv6 brackets kept", () => {
    expect(originOf("https://App.Example.test:443/x?y#z")).toBe("https://app.example.test");
    expect(originOf("http://localhost:3000/a")).toBe("http://localhost:3000");
    expect(originOf("http://x.test:80/")).toBe("http://x.test");
    expect(originOf("http://[::1]:8080/p")).toBe("http://[::1]:8080");
    const r = at(at(emptyRecord(), ["http://[::1]:8080/p?q=1"], 1), [`${A}/`], 2);
    expect(r.history[1]).toEqual({ origin: "http://[::1]:8080", url: "http://[::1]:8080/p", at: 1 });
  });
});

describe("reading a stored record", () => {
  test("a record from before the history reads as having been nowhere", () => {
    const r = fromJson(JSON.stringify({ session_id: "s1", opened_at: 5, url: "https://a.test/old" }));
    expect(r.history).toEqual([]);
    expect(recordUrl(r)).toBe("");
    expect(r.session_id).toBe("s1");
    expect("url" in r).toBe(false);
  });

  test("a record the Python build wrote reads as is", () => {
    // json.dumps of the Python SessionRecord: float times, its field names, a leftover url key.
    const python =
      '{"session_id": "5f0c2a", "opened_at": 1790900000.25, "settings": {"browser": "firefox", "width": 1280, "height": 800}, ' +
      '"history": [{"origin": "https://app.example.test", "url": "https://app.example.test/d/abc?x=1", "at": 1790900100.5}, ' +
      '{"origin": "http://127.0.0.1:8000", "url": "http://127.0.0.1:8000/", "at": 1790900050.0}], ' +
      '"site_data": {"cookies": [{"name": "sid", "value": "v", "value_type": "string", "domain": "app.example.test", "path": "/", ' +
      '"http_only": true, "secure": true, "same_site": "Lax", "expiry": null}], "saved_at": 1790900060.0}, ' +
      '"reopened": {"browser": "5f0c2a", "report": {"restored": ["app.example.test"], "skipped": []}}, "url": "https://old.example.test/"}';
    const r = fromJson(python);
    expect(r.session_id).toBe("5f0c2a");
    expect(r.opened_at).toBe(1790900000.25);
    expect(r.settings).toEqual({ browser: "firefox", width: 1280, height: 800 });
    expect(r.history).toEqual([
      { origin: "https://app.example.test", url: "https://app.example.test/d/abc?x=1", at: 1790900100.5 },
      { origin: "http://127.0.0.1:8000", url: "http://127.0.0.1:8000/", at: 1790900050 },
    ]);
    expect(recordUrl(r)).toBe("https://app.example.test/d/abc?x=1");
    expect(r.site_data.cookies?.[0]?.name).toBe("sid");
    expect(r.site_data.saved_at).toBe(1790900060);
    expect(r.reopened).toEqual({
      browser: "5f0c2a",
      report: { restored: ["app.example.test"], skipped: [] },
    });
    // And what this build writes back keeps the same field names.
    expect(Object.keys(JSON.parse(toJson(r)))).toEqual([
      "session_id",
      "opened_at",
      "settings",
      "history",
      "site_data",
      "reopened",
    ]);
  });

  test("a malformed entry is dropped, not fatal", () => {
    const r = fromJson({
      history: [
        { origin: 7, url: "https://a.test/", at: 1 },
        "https://b.test/",
        { origin: "https://c.test", url: "https://c.test/", at: "5" },
        { origin: "https://d.test", url: "https://d.test/", at: true },
        { origin: "", url: "https://e.test/", at: 1 },
        { origin: "https://f.test", url: "", at: 1 },
        { origin: "https://ok.test", url: "https://ok.test/", at: 3 },
      ],
    });
    expect(r.history).toEqual([{ origin: "https://ok.test", url: "https://ok.test/", at: 3 }]);
    expect(fromJson({ history: { 0: "x" } }).history).toEqual([]);
    expect(fromJson({ history: "https://a.test/" }).history).toEqual([]);
  });

  test("malformed records read defensively", () => {
    for (const raw of ["not json", "[1,2]", "null", "42", '"text"', "", [1], null, undefined]) {
      expect(fromJson(raw)).toEqual(emptyRecord());
    }
    const r = fromJson({
      session_id: 12,
      opened_at: "yesterday",
      settings: [1],
      history: null,
      site_data: [1],
      reopened: "yes",
    });
    expect(r).toEqual(emptyRecord());
    expect(fromJson({ reopened: { browser: 3, report: {} } }).reopened).toEqual({});
  });

  test("a record round-trips through its JSON", () => {
    const r: WorkspaceRecord = {
      ...at(emptyRecord(), [`${A}/x`, `${B}/y?z=1`], 42),
      session_id: "abc",
      opened_at: 41.5,
      settings: { browser: "chrome" },
    };
    expect(fromJson(toJson(r))).toEqual(r);
  });
});
