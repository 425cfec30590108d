// IndexedDB in site data on the real Grid: a Firebase-style sign-in (firebaseLocalStorageDb) and a
// database with an autoIncrement store, an index, Dates, bytes, a Map, a Set, BigInt, odd numbers
// and nested arrays, saved from a page and from a spare tab, come back exactly after a real end and
// reopen and after a reap behind the server's back; a Blob is skipped by name; the views count it;
// restore_site_data=false deletes it. No stored value in any body or log line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testGridUrl } from "../support/env.ts";
import { endAll, logLines, startServer, type TestServer } from "../support/server.ts";

const W = "site-data-idb";
const TOKEN_VALUE = "fb-id-token-7c21e9a4d0";
const REFRESH = "fb-refresh-5e08b3c6f1";

const fixture = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: () =>
    new Response("<!doctype html><title>app</title><body>ok</body>", {
      headers: { "content-type": "text/html; charset=utf-8" },
    }),
});
const AUTH = `http://auth.example.test:${fixture.port}`;
const DATA = `http://data.example.test:${fixture.port}`;

// What Firebase Auth writes: one store, keyPath fbase_key, the user under firebase:authUser:...
const FIREBASE = `async (token, refresh) => {
  const db = await new Promise((res, rej) => {
    const r = indexedDB.open('firebaseLocalStorageDb', 1);
    r.onupgradeneeded = () => r.result.createObjectStore('firebaseLocalStorage', { keyPath: 'fbase_key' });
    r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error);
  });
  const tx = db.transaction('firebaseLocalStorage', 'readwrite');
  tx.objectStore('firebaseLocalStorage').put({
    fbase_key: 'firebase:authUser:AIzaFake:[DEFAULT]',
    value: { uid: 'u-1', email: 'someone@example.test', stsTokenManager: { accessToken: token, refreshToken: refresh, expirationTime: 1893456000000 }, providerData: [{ providerId: 'password' }] },
  });
  await new Promise((res) => (tx.oncomplete = res));
  db.close();
  return 'ok';
}`;

const RICH = `async () => {
  const db = await new Promise((res, rej) => {
    const r = indexedDB.open('shop', 3);
    r.onupgradeneeded = () => {
      const orders = r.result.createObjectStore('orders', { keyPath: 'id', autoIncrement: true });
      orders.createIndex('by_tag', 'tags', { unique: false, multiEntry: true });
      orders.createIndex('by_ref', 'ref', { unique: true });
      r.result.createObjectStore('blobs');
      r.result.createObjectStore('loose', { autoIncrement: true });
    };
    r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error);
  });
  const tx = db.transaction(['orders', 'blobs', 'loose'], 'readwrite');
  const orders = tx.objectStore('orders');
  orders.add({ ref: 'A-1', tags: ['x', 'y'], at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)), bytes: new Uint8Array([0, 1, 254, 255]),
    map: new Map([['k', [1, [2, [3]]]], [7, new Set(['s'])]]), nums: [NaN, Infinity, -Infinity, -0, 1.5], big: 12345678901234567890n,
    nothing: undefined, nil: null, re: /a+b/gi, buf: new Uint16Array([65535, 2]).buffer, $: 'dollar', nested: [[[]], [{ a: [true, false] }]] });
  orders.add({ ref: 'A-2', tags: ['y'], at: new Date(0), floats: new Float64Array([0.1, -2]) });
  tx.objectStore('blobs').put(new Blob(['not carried']), 'b1');
  tx.objectStore('blobs').put('text kept', 'b2');
  tx.objectStore('loose').add(['first']);
  tx.objectStore('loose').put({ when: new Date(5) }, [new Date(9), 'compound']);
  await new Promise((res) => (tx.oncomplete = res));
  db.close();
  return 'ok';
}`;

// A typed description of every database on the page's origin: what equal means here.
const DUMP = `async () => {
  const d = (v) => {
    if (v === null) return 'null';
    if (v === undefined) return 'undef';
    const t = typeof v;
    if (t === 'number') return Object.is(v, -0) ? 'n:-0' : 'n:' + String(v);
    if (t === 'bigint') return 'big:' + v;
    if (t !== 'object') return t[0] + ':' + JSON.stringify(v);
    if (Array.isArray(v)) return '[' + v.map(d).join(',') + ']';
    if (v instanceof Date) return 'date:' + v.getTime();
    if (v instanceof RegExp) return 're:' + String(v);
    if (v instanceof Map) return 'map{' + [...v].map(([k, x]) => d(k) + '=>' + d(x)).join(',') + '}';
    if (v instanceof Set) return 'set{' + [...v].map(d).join(',') + '}';
    if (v instanceof ArrayBuffer) return 'ab:' + [...new Uint8Array(v)];
    if (ArrayBuffer.isView(v)) return v.constructor.name + ':' + [...new Uint8Array(v.buffer, v.byteOffset, v.byteLength)];
    if (v instanceof Blob) return 'blob';
    return '{' + Object.keys(v).map((k) => k + ':' + d(v[k])).join(',') + '}';
  };
  const req = (r) => new Promise((res, rej) => { r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
  const out = [];
  for (const info of (await indexedDB.databases()).sort((a, b) => a.name.localeCompare(b.name))) {
    const db = await req(indexedDB.open(info.name));
    out.push('db ' + db.name + ' v' + db.version);
    for (const sn of [...db.objectStoreNames]) {
      const s = db.transaction(sn).objectStore(sn);
      out.push(' store ' + sn + ' ' + JSON.stringify(s.keyPath) + ' ai=' + s.autoIncrement);
      for (const n of [...s.indexNames]) { const i = s.index(n); out.push('  index ' + n + ' ' + JSON.stringify(i.keyPath) + ' u=' + i.unique + ' m=' + i.multiEntry); }
      const keys = await req(s.getAllKeys()); const values = await req(s.getAll());
      keys.forEach((k, i) => out.push('  ' + d(k) + ' = ' + d(values[i])));
    }
    db.close();
  }
  return out.join('\\n');
}`;

// After a restore the key generator goes on from the restored keys.
const NEXT_KEY = `async () => {
  const db = await new Promise((res) => { const r = indexedDB.open('shop'); r.onsuccess = () => res(r.result); });
  const tx = db.transaction('orders', 'readwrite');
  const key = await new Promise((res) => { tx.objectStore('orders').add({ ref: 'A-3', tags: [] }).onsuccess = (e) => res(e.target.result); });
  tx.abort(); db.close();
  return key;
}`;

let server: TestServer;
const bodies: string[] = [];
let before = { auth: "", data: "" };

async function call(method: string, path: string, body?: unknown) {
  const res = await server.call(method, path, body, W);
  if (!/^\/site-data\/./.test(path) && !path.endsWith("/script")) bodies.push(JSON.stringify(res.body));
  return res;
}

async function run(script: string, args: unknown[] = []) {
  const res = await call("POST", "/browser/script", { script, args });
  expect(res.status).toBe(200);
  return res.body.result;
}

async function dumpBoth() {
  await call("POST", "/browser/navigate", { url: `${AUTH}/` });
  const auth = await run(DUMP);
  await call("POST", "/browser/navigate", { url: `${DATA}/` });
  const data = await run(DUMP);
  return { auth, data };
}

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  fixture.stop(true);
  const everything = [...bodies, ...logLines].join("\n");
  for (const v of [TOKEN_VALUE, REFRESH, "someone@example.test", "A-1"]) expect(everything).not.toContain(v);
});

describe("IndexedDB in site data", () => {
  test("a save reads every database of the page's origin and of a history origin; a Blob is skipped by name", async () => {
    expect((await call("POST", "/browser", { url: `${DATA}/`, restore_site_data: false })).status).toBe(200);
    expect(await run(RICH)).toBe("ok");
    await call("POST", "/browser/navigate", { url: `${AUTH}/` });
    expect(await run(FIREBASE, [TOKEN_VALUE, REFRESH])).toBe("ok");
    before = await dumpBoth();
    expect(before.auth).toContain("db firebaseLocalStorageDb v1");
    expect(before.auth).toContain(' store firebaseLocalStorage "fbase_key" ai=false');
    expect(before.data).toContain("date:1767323045006");
    expect(before.data).toContain('  s:"b1" = blob');
    // Saved on the auth page: the shop is read in a spare tab.
    await call("POST", "/browser/navigate", { url: `${AUTH}/` });
    const saved = await call("POST", "/browser/save-site-data", {});
    expect(saved.status).toBe(200);
    expect(saved.body.saved.sites).toEqual([AUTH, DATA]);
    expect(saved.body.saved.skipped).toEqual([
      { site: DATA, database: "shop", store: "blobs", reason: "1 record holding a Blob cannot be saved" },
    ]);
    const listing = await call("GET", "/site-data");
    const rows = Object.fromEntries(listing.body.sites.map((s: any) => [s.site, s.storage]));
    expect(rows["auth.example.test"]).toEqual([
      { origin: AUTH, local_storage: 0, session_storage: 0, indexeddb: { databases: 1, records: 1 } },
    ]);
    expect(rows["data.example.test"]).toEqual([
      { origin: DATA, local_storage: 0, session_storage: 0, indexeddb: { databases: 1, records: 5 } },
    ]);
    const one = await call("GET", "/site-data/data.example.test");
    const shop = one.body.storage[0].indexeddb[0];
    expect([
      shop.name,
      shop.version,
      shop.stores.map((s: any) => [s.name, s.key_path, s.auto_increment]),
    ]).toEqual([
      "shop",
      3,
      [
        ["blobs", null, false],
        ["loose", null, true],
        ["orders", "id", true],
      ],
    ]);
    expect(shop.stores[2].indexes).toEqual([
      { name: "by_ref", key_path: "ref", unique: true, multi_entry: false },
      { name: "by_tag", key_path: "tags", unique: false, multi_entry: true },
    ]);
  }, 180_000);

  test("a real end and reopen puts every database back exactly, before the first page", async () => {
    expect((await call("DELETE", "/browser")).body).toEqual({ ended: true });
    const reopened = await call("POST", "/browser", {});
    expect(reopened.status).toBe(200);
    expect(reopened.body.site_data).toEqual({
      restored: ["auth.example.test", "data.example.test"],
      skipped: [],
      uri: "workspace://site-data",
    });
    const after = await dumpBoth();
    expect(after.auth).toBe(before.auth);
    expect(after.data).toBe(before.data.replace('  s:"b1" = blob\n', ""));
    expect(await run(NEXT_KEY)).toBe(3);
  }, 180_000);

  test("a browser reaped behind the server's back comes back with its databases", async () => {
    const id = (await server.app.services.store.get(W))?.session_id ?? "";
    expect((await fetch(`${testGridUrl}/session/${id}`, { method: "DELETE" })).status).toBe(200);
    const next = await call("POST", "/browser/navigate", { url: `${AUTH}/` });
    expect(next.status).toBe(200);
    expect(next.body.site_data?.restored).toEqual(["auth.example.test", "data.example.test"]);
    expect(await run(DUMP)).toBe(before.auth);
    await call("POST", "/browser/navigate", { url: `${DATA}/` });
    expect(await run(DUMP)).toBe(before.data.replace('  s:"b1" = blob\n', ""));
  }, 180_000);

  test("restore_site_data=false deletes the databases with the rest", async () => {
    const fresh = await call("POST", "/browser", { restore_site_data: false, url: `${AUTH}/` });
    expect(fresh.body.site_data).toEqual({ forgotten: 2 });
    expect(await run(DUMP)).toBe("");
    expect((await call("GET", "/site-data")).body.sites).toEqual([]);
    const again = await call("POST", "/browser", {});
    expect("site_data" in again.body).toBe(false);
  }, 180_000);
});
