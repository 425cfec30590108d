// Site data sealed at rest (README, "Staying signed in: site data"): no saved value is readable in any file under the data dir
// (WAL included) or in any Redis key; a wrong key refuses cleanly and never overwrites what it
// cannot open; the right key then finds everything; rekey re-seals under a new key.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RedisClient } from "bun";
import { ConfigError } from "../../src/config/sources.ts";
import { checkSealed, KEY_FILE, openStore, rekey } from "../../src/store/index.ts";
import { emptyRecord, type WorkspaceRecord } from "../../src/store/record.ts";
import type { RecordStore } from "../../src/store/types.ts";
import { testGridUrl, testRedisUrl } from "../support/env.ts";
import { serveFixture } from "../support/fixtures.ts";
import { endAll, startServer } from "../support/server.ts";

const KEY_A = "store-key-a-0123456789abcdef0123456789";
const KEY_B = "store-key-b-0123456789abcdef0123456789";
const VALUES = ["sid-plain-7f3e9a1c5b", "local-plain-2d8b6e4f0a", "session-plain-9c1a7e3b5d"];

const dirs: string[] = [];
const opened: RecordStore[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "sf-seal-"));
  dirs.push(d);
  return d;
};
afterAll(async () => {
  for (const s of opened) await s.close().catch(() => undefined);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
async function open(settings: Parameters<typeof openStore>[0]): Promise<RecordStore> {
  const s = await openStore(settings);
  opened.push(s);
  return s;
}

const withData = (): WorkspaceRecord => ({
  ...emptyRecord(),
  session_id: "s1",
  site_data: {
    saved_at: 1_790_900_000,
    cookies: [
      { name: "sid", value: VALUES[0] as string, domain: "app.example.test", path: "/", http_only: true },
    ],
    origins: {
      "http://app.example.test": {
        local: { pref: VALUES[1] as string },
        session: { token: VALUES[2] as string },
      },
    },
  } as unknown as WorkspaceRecord["site_data"],
});

/** Every file under dir, as bytes (the SQLite file, its WAL and SHM, the key file). */
function filesUnder(dir: string): Array<{ path: string; bytes: Buffer }> {
  const out: Array<{ path: string; bytes: Buffer }> = [];
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    if (statSync(path).isFile()) out.push({ path, bytes: readFileSync(path) });
  }
  return out;
}
const plainIn = (bytes: Buffer) => VALUES.filter((v) => bytes.includes(v));

describe("site data sealed at rest", () => {
  test("SQLite: no value in any file under the data dir; the key file is beside it, owner-only", async () => {
    const dir = tempDir();
    const s = await open({ dataDir: dir, ttl: 600 });
    await s.set("w", withData());
    await s.update("w", (r) => (r ? { ...r, opened_at: 5 } : r));
    const files = filesUnder(dir);
    expect(files.map((f) => f.path)).toContain(join(dir, "records.sqlite-wal"));
    for (const f of files)
      expect({ path: f.path, found: plainIn(f.bytes) }).toEqual({ path: f.path, found: [] });
    const key = readFileSync(join(dir, KEY_FILE), "utf8").trim();
    expect(key.length).toBeGreaterThanOrEqual(32);
    expect(statSync(join(dir, KEY_FILE)).mode & 0o777).toBe(0o600);
    for (const f of files.filter((f) => !f.path.endsWith(KEY_FILE)))
      expect(f.bytes.includes(key)).toBe(false);
    // And it reads back whole.
    expect((await s.get("w"))?.site_data).toEqual(withData().site_data);
  });

  test("Redis: no value in any key; store.url without store.key refuses, naming it", async () => {
    const prefix = `sf-seal-${process.pid}-${Date.now()}:`;
    const s = await open({ storeUrl: testRedisUrl, ttl: 600, prefix, key: KEY_A });
    await s.set("w", withData());
    await s.update("w", (r) => (r ? { ...r, opened_at: 5 } : r));
    const raw = new RedisClient(testRedisUrl);
    try {
      const keys = (await raw.send("KEYS", [`${prefix}*`])) as string[];
      expect(keys.length).toBeGreaterThan(0);
      for (const k of keys) {
        const type = await raw.send("TYPE", [k]);
        const dump =
          type === "string"
            ? String(await raw.send("GET", [k]))
            : JSON.stringify(await raw.send("DUMP", [k]));
        expect(plainIn(Buffer.from(dump))).toEqual([]);
      }
    } finally {
      raw.close();
    }
    expect((await s.get("w"))?.site_data).toEqual(withData().site_data);
    const err = await openStore({ storeUrl: testRedisUrl, ttl: 60, prefix }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err?.message).toContain("store.key");
  });

  test("a wrong key refuses at boot, reads nothing, and overwrites nothing; the right key finds everything", async () => {
    const dir = tempDir();
    const a = await open({ dataDir: dir, ttl: 600, key: KEY_A });
    await a.set("w", withData());
    await a.close();
    const b = await open({ dataDir: dir, ttl: 600, key: KEY_B });
    const seen = await b.get("w");
    expect(seen?.site_data).toEqual({});
    expect(seen?.unreadable).toBeString();
    const refused = await checkSealed(b).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    expect(refused?.message).toContain("store.key");
    expect(refused?.message).toContain("w");
    // A call that went on anyway (a later save) must not replace what it could not open.
    await b.update("w", (r) =>
      r
        ? {
            ...r,
            opened_at: 9,
            site_data: { saved_at: 1, origins: { "http://x.example.test": { local: { a: "b" } } } },
          }
        : r,
    );
    await b.close();
    const again = await open({ dataDir: dir, ttl: 600, key: KEY_A });
    await checkSealed(again);
    const back = await again.get("w");
    expect(back?.site_data).toEqual(withData().site_data);
    expect(back?.opened_at).toBe(9);
  });

  test("a record written before sealing reads as it was and is sealed at its next write", async () => {
    const dir = tempDir();
    const plain = await open({ dataDir: dir, ttl: 600, key: KEY_A });
    // Planted as the previous build wrote it: plain JSON.
    (plain as unknown as { db: { run(sql: string, ...a: unknown[]): void } }).db.run(
      "INSERT INTO records (key, value, expires_at) VALUES (?, ?, ?)",
      "old",
      JSON.stringify(withData()),
      Date.now() / 1000 + 600,
    );
    expect((await plain.get("old"))?.site_data).toEqual(withData().site_data);
    await plain.update("old", (r) => (r ? { ...r, opened_at: 3 } : r));
    const row = (plain as unknown as { db: { query(sql: string): { get(k: string): { value: string } } } }).db
      .query("SELECT value FROM records WHERE key = ?")
      .get("old");
    expect(plainIn(Buffer.from(String(row.value)))).toEqual([]);
  });

  test("rekey re-seals every record under the new key; the old key then opens none", async () => {
    const dir = tempDir();
    const a = await open({ dataDir: dir, ttl: 600, key: KEY_A });
    for (const k of ["w1", "w2"]) await a.set(k, withData());
    await a.close();
    const both = await open({ dataDir: dir, ttl: 600, key: KEY_B, oldKeys: [KEY_A] });
    expect(await rekey(both)).toEqual({ resealed: 2, unreadable: [] });
    await both.close();
    const b = await open({ dataDir: dir, ttl: 600, key: KEY_B });
    await checkSealed(b);
    expect((await b.get("w2"))?.site_data).toEqual(withData().site_data);
    await b.close();
    const old = await open({ dataDir: dir, ttl: 600, key: KEY_A });
    expect((await old.get("w1"))?.unreadable).toBeString();
  });

  test("the server refuses to boot on a store its key cannot open, naming store.key (exit 2)", async () => {
    const dir = tempDir();
    const a = await open({ dataDir: dir, ttl: 600, key: KEY_A });
    await a.set("w", withData());
    await a.close();
    const proc = Bun.spawn(
      [join(import.meta.dir, "../../node_modules/.bin/bun"), "src/main.ts", "--http-port", "0"],
      {
        cwd: join(import.meta.dir, "../.."),
        env: {
          PATH: process.env.PATH ?? "",
          HOME: "/tmp",
          DATA_DIR: dir,
          STORE_KEY: KEY_B,
          GRID_URL: testGridUrl,
        },
        stderr: "pipe",
        stdout: "ignore",
      },
    );
    const code = await proc.exited;
    const err = await new Response(proc.stderr).text();
    expect(code).toBe(2);
    expect(err).toContain("selenium-flow: store.key cannot open the site data of 1 workspace (w)");
    // Nothing was written over: the right key still opens it.
    const right = await open({ dataDir: dir, ttl: 600, key: KEY_A });
    expect((await right.get("w"))?.site_data).toEqual(withData().site_data);
  });

  test("store.key shorter than 32 characters is refused, naming it", async () => {
    const err = await openStore({ ttl: 60, key: "short" }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err?.message).toContain("store.key");
  });
});

describe("a real save on the Grid", () => {
  const SID = "grid-sid-41f0c2e8b7";
  const LOCAL = "grid-local-8e2a6c1d93";
  const site = serveFixture({
    "/": () =>
      new Response(
        `<!doctype html><title>app</title><script>localStorage.setItem('pref', ${JSON.stringify(LOCAL)}); document.title = 'app: ' + (localStorage.getItem('pref') === ${JSON.stringify(LOCAL)} ? 'kept' : 'empty') + '/' + (document.cookie.includes('seen=1') ? 'seen' : 'new'); document.cookie = 'seen=1; path=/; max-age=3600';</script>`,
        {
          headers: {
            "content-type": "text/html",
            "set-cookie": `sid=${SID}; HttpOnly; Path=/; Max-Age=3600`,
          },
        },
      ),
  });
  afterAll(() => site.stop());

  test("after save_site_data no value is in plain text under the data dir, and a new browser still gets it back", async () => {
    expect(testGridUrl).toBeTruthy();
    const server = await startServer();
    const W = "sealed-save";
    try {
      expect((await server.call("POST", "/browser", { url: site.url("/") }, W)).status).toBe(200);
      const saved = await server.call("POST", "/browser/save-site-data", {}, W);
      expect(saved.status).toBe(200);
      const dir = server.dataDir as string;
      for (const f of filesUnder(dir)) {
        expect({ path: f.path, sid: f.bytes.includes(SID), local: f.bytes.includes(LOCAL) }).toEqual({
          path: f.path,
          sid: false,
          local: false,
        });
      }
      expect((await server.call("DELETE", "/browser", undefined, W)).status).toBe(200);
      const reopened = await server.call("POST", "/browser", { url: site.url("/") }, W);
      expect(reopened.status).toBe(200);
      expect(reopened.body.title).toBe("app: kept/seen");
    } finally {
      await endAll(server, [W]);
      await server.close();
    }
  });
});
