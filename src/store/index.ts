// Picks the record store from the configuration: Redis when store.url is set, else SQLite in the
// data directory, else SQLite in memory.

import { createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ConfigError } from "../config/sources.ts";
import { writeOnce } from "../kit/write-once.ts";
import { RedisStore } from "./redis.ts";
import { redactedUrl } from "./redis-client.ts";
import { deriveKey, newStoreKey, SealCodec } from "./seal.ts";
import { SqliteStore } from "./sqlite.ts";
import type { RecordStore } from "./types.ts";

export type { RecordStore } from "./types.ts";

export interface StoreSettings {
  dataDir?: string | null;
  storeUrl?: string | null;
  /** Seconds a record lives after its last write. */
  ttl: number;
  /** Redis key prefix (default `sf:`). */
  prefix?: string;
  /** store.key: seals site data at rest. Without one: a key file in dataDir, or a key for this process alone in memory. */
  key?: string | null;
  /** Earlier keys that may still open records (a rekey). */
  oldKeys?: string[];
  /** Told once where a generated key file is. */
  log?: (message: string) => void;
  /** Told when a record's site data is sealed under another key. */
  warn?: (message: string) => void;
  /** Handed a workspace's own secrets whenever a record holding them is read. */
  openedSecrets?: (secrets: object) => void;
  /** The key the store seals with, once chosen (its fingerprint is checked at boot). */
  chosen?: (key: string, fresh: boolean) => void;
  /** A key file the data dir lacks is made only once `keep()` is called (after the boot checks). */
  keyFileLater?: { keep?: () => boolean };
}

/** The key file a data dir keeps when no store.key is set: beside the token file, never in records.sqlite. */
export const KEY_FILE = ".store-key";
const MIN_KEY = 32;

function checkKey(key: string, where: string): string {
  if (key.length < MIN_KEY)
    throw new ConfigError(
      `${where} must be at least ${MIN_KEY} characters: give a long random string (e.g. openssl rand -base64 32)`,
    );
  return key;
}

/** The store key: store.key, else the data dir's key file (made on first boot), else one for this process. */
function storeKey(settings: StoreSettings): string {
  if (settings.key) {
    const key = checkKey(settings.key, "store.key (STORE_KEY)");
    settings.chosen?.(key, false);
    return key;
  }
  if (settings.storeUrl)
    throw new ConfigError(
      "store.key (STORE_KEY) is required with store.url: site data is sealed at rest, and every server of a group must be given the same key (at least 32 characters)",
    );
  if (!settings.dataDir) return newStoreKey();
  const file = join(settings.dataDir, KEY_FILE);
  if (!existsSync(file) && settings.keyFileLater) {
    // Kept in memory until the boot's checks pass: a refused boot leaves no key file behind.
    const key = newStoreKey();
    settings.chosen?.(key, true);
    settings.keyFileLater.keep = () => {
      writeKeyFile(settings, file, key);
      // Another server on this data dir linked its file first: the boot starts again with that key.
      return readFileSync(file, "utf8").trim() === key;
    };
    return key;
  }
  if (!existsSync(file)) writeKeyFile(settings, file, newStoreKey());
  const key = checkKey(readFileSync(file, "utf8").trim(), `the key file ${file}`);
  settings.chosen?.(key, false);
  return key;
}

function writeKeyFile(settings: StoreSettings, file: string, key: string): void {
  if (writeOnce(file, `${key}\n`))
    settings.log?.(
      `site data is sealed at rest under a new key in ${file}: back it up with the data, or set store.key`,
    );
}

export async function openStore(settings: StoreSettings): Promise<RecordStore> {
  const { dataDir, storeUrl, ttl, prefix } = settings;
  const sealing = () =>
    new SealCodec(
      [storeKey(settings), ...(settings.oldKeys ?? [])].map((k) => deriveKey(k)),
      settings.warn,
      settings.openedSecrets,
    );
  if (storeUrl) {
    let scheme = "";
    try {
      scheme = new URL(storeUrl).protocol;
    } catch {}
    if (scheme !== "redis:" && scheme !== "rediss:") {
      throw new Error(
        `store.url must be a redis:// or rediss:// URL (got ${scheme ? redactedUrl(storeUrl) : "something that is not a URL"}): set it to e.g. redis://host:6379/0, or leave it empty for the embedded SQLite store`,
      );
    }
    return new RedisStore({ url: storeUrl, ttl, prefix, codec: sealing() });
  }
  if (!dataDir) return new SqliteStore({ path: ":memory:", ttl, codec: sealing() });
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  return new SqliteStore({ path: join(dataDir, "records.sqlite"), ttl, codec: sealing() });
}

/**
 * Refuses a store whose site data this server's key cannot open (a wrong or missing store.key),
 * naming the setting: nothing is read as empty and saved over. Looks at up to `limit` records.
 */
export async function checkSealed(store: RecordStore, limit = 500): Promise<void> {
  const keys = (await store.keys()).slice(0, limit);
  const closed: string[] = [];
  let opened = 0;
  for (const key of keys) {
    const record = await store.get(key);
    if (record?.unreadable !== undefined) closed.push(key);
    else if (record && Object.keys(record.site_data).length > 0) opened++;
    // A few seals this key opens and none it cannot: the key is the store's; no need to read on.
    if (opened >= 3 && closed.length === 0) return;
  }
  if (closed.length === 0) return;
  throw new ConfigError(
    `store.key cannot open the site data of ${closed.length} workspace${closed.length === 1 ? "" : "s"} (${closed.slice(0, 3).join(", ")}${closed.length > 3 ? ", …" : ""}): start with the key it was sealed with (STORE_KEY, or the data dir's ${KEY_FILE}), or re-seal with selenium-flow rekey --from OLD_KEY`,
  );
}

const PRINT = "store-key";
// A mark lives for a time; the key's fingerprint is meant to outlive every record.
const FOREVER = 100 * 365 * 86400;

/** A fingerprint of a store key: it tells keys apart and gives nothing of the key away. */
export function keyPrint(key: string): string {
  return createHmac("sha256", deriveKey(key)).update("selenium-flow store key").digest("hex").slice(0, 32);
}

/**
 * Refuses a store that keeps another key's fingerprint (every server of a group checks it at boot,
 * so one given another store.key never starts); a store without one takes this key's. A rekey
 * (`retired`: the keys it re-seals from) makes this key the store's and retires theirs.
 */
export async function checkKeyPrint(store: RecordStore, key: string, retired: string[] = []): Promise<void> {
  const mine = `${PRINT}:${keyPrint(key)}`;
  const replace = retired.length > 0;
  for (const old of retired) if (old !== key) await store.putMark(`${PRINT}:${keyPrint(old)}`, 1);
  if (!replace && (await store.hasMark(mine))) return;
  // A server of the same key booting alongside writes its fingerprint before the store's mark: one
  // seen now was there already, or was not this key's.
  if (!replace && (await store.hasMark(PRINT)) && !(await store.hasMark(mine)))
    throw new ConfigError(
      "store.key is not the key this store's site data was sealed with (the store keeps its key's fingerprint, and this one differs): give every server of the group the same store.key (STORE_KEY), or re-seal with selenium-flow rekey --from OLD_KEY",
    );
  await store.putMark(mine, FOREVER);
  await store.putMark(PRINT, FOREVER);
}

/** Whether the store keeps a key's fingerprint (some server has sealed under a key already). */
export function hasKeyPrint(store: RecordStore): Promise<boolean> {
  return store.hasMark(PRINT);
}

/**
 * The group a server's browsers are tagged with on the Grid (webdriver-caps.ts OWNER_CAP): a digest
 * of the store's key and where the store is, so every server of a group (one store, one key) tags
 * alike, another group sharing the Grid never matches, and nothing of the key is given away. Not kept
 * in the store: a store that lost its data (Redis flushed) still knows its browsers. With records
 * in memory, or without a key (a store handed in by a test), a group of this process alone.
 */
export function browserGroup(
  config: { store: { url: string | null }; data: { dir: string | null } },
  key: string | undefined,
): string {
  let place: string;
  if (config.store.url) {
    const u = new URL(config.store.url);
    place = `${u.protocol}//${u.host.toLowerCase()}/${u.pathname.replace(/^\/+/, "") || "0"}`;
  } else if (config.data.dir) place = resolve(config.data.dir, "records.sqlite");
  // Records in memory are this process's alone, and so are its browsers: another in-memory server
  // given the same key must not end them as its own.
  else return randomBytes(8).toString("hex");
  const secret = key ? deriveKey(key) : randomBytes(32);
  return createHmac("sha256", secret).update(`selenium-flow browsers\n${place}`).digest("hex").slice(0, 16);
}

/** Re-seals every record under the store's first key (opened with any of its keys). Returns how many were written and which no key opened. */
export async function rekey(store: RecordStore): Promise<{ resealed: number; unreadable: string[] }> {
  let resealed = 0;
  const unreadable: string[] = [];
  for (const key of await store.keys()) {
    const after = await store.update(key, (cur) =>
      // A new snapshot object: the codec re-seals it under the current key.
      cur && cur.unreadable === undefined ? { ...cur, site_data: { ...cur.site_data } } : null,
    );
    if (after?.unreadable !== undefined) unreadable.push(key);
    else if (after) resealed++;
  }
  return { resealed, unreadable };
}
