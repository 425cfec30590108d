// The store keeps its key's fingerprint: a server given another store.key refuses to boot, on Redis
// (a group) and on a data dir alike, even before any site data was saved; a boot that is refused
// writes no key file; a rekey makes the new key the store's.

import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RedisClient } from "bun";
import { openSealedStore } from "../../src/app.ts";
import { type Config, defaultConfig } from "../../src/config/schema.ts";
import { Log } from "../../src/log.ts";
import { KEY_FILE } from "../../src/store/index.ts";
import { emptyRecord } from "../../src/store/record.ts";
import { testRedisUrl } from "../support/env.ts";

const KEY_A = "keyprint-a-0123456789abcdef0123456789";
const KEY_B = "keyprint-b-0123456789abcdef0123456789";
// A database of its own: the fingerprint lives under the default prefix, as a group's does.
const REDIS = testRedisUrl.replace(/\/\d*$/, "/7");
const DIFFERS = /^store\.key is not the key this store's site data was sealed with/;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function config(edit: (c: Config) => void): Config {
  const c = defaultConfig();
  edit(c);
  return c;
}
async function boots(c: Config, oldKeys: string[] = []): Promise<true | string> {
  try {
    const store = await openSealedStore(c, new Log(), oldKeys);
    await store.close();
    return true;
  } catch (err) {
    return (err as Error).message;
  }
}

test("two servers on one Redis with different keys: the second refuses, even with nothing saved", async () => {
  const raw = new RedisClient(REDIS);
  await raw.send("FLUSHDB", []);
  raw.close();
  const a = config((c) => {
    c.store.url = REDIS;
    c.store.key = KEY_A;
  });
  const b = config((c) => {
    c.store.url = REDIS;
    c.store.key = KEY_B;
  });
  expect(await boots(a)).toBe(true);
  expect(await boots(b)).toMatch(DIFFERS);
  // The right key still boots, again and again (every server of a group).
  expect(await boots(a)).toBe(true);
  expect(await boots(a)).toBe(true);
  // A rekey from A to B makes B the store's key; A is then the one refused.
  expect(await boots(b, [KEY_A])).toBe(true);
  expect(await boots(b)).toBe(true);
  await Bun.sleep(1100);
  expect(await boots(a)).toMatch(DIFFERS);
});

test("a data dir sealed under STORE_KEY, booted without it: refused, and no key file is written", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sf-keyprint-"));
  dirs.push(dir);
  const withKey = config((c) => {
    c.data.dir = dir;
    c.store.key = KEY_A;
  });
  const store = await openSealedStore(withKey, new Log());
  await store.set("w1", emptyRecord());
  await store.close();
  const without = config((c) => {
    c.data.dir = dir;
  });
  expect(await boots(without)).toMatch(DIFFERS);
  expect(existsSync(join(dir, KEY_FILE))).toBe(false);
  expect(await boots(withKey)).toBe(true);
});

test("ordinary use: a new data dir without a key makes its key file once and boots again on it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sf-keyprint-"));
  dirs.push(dir);
  const c = config((x) => {
    x.data.dir = dir;
  });
  expect(await boots(c)).toBe(true);
  expect(existsSync(join(dir, KEY_FILE))).toBe(true);
  expect(await boots(c)).toBe(true);
  expect(await boots(c)).toBe(true);
});

test("ordinary use: servers booting together on a new data dir all boot, on the one key file that landed", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sf-keyprint-"));
  dirs.push(dir);
  const c = config((x) => {
    x.data.dir = dir;
  });
  expect(await Promise.all([boots(c), boots(c), boots(c), boots(c)])).toEqual([true, true, true, true]);
  expect(await boots(c)).toBe(true);
});
