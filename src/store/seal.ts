// Site data sealed at rest: a record's `site_data` (cookies, localStorage, sessionStorage,
// IndexedDB) leaves the process only as AES-256-GCM ciphertext under the store key, a fresh nonce
// per seal. node:crypto's synchronous cipher rather than WebCrypto's: the store's update function
// must be synchronous (it runs inside SQLite's transaction and is retried by Redis), and the two
// are the same algorithm. A seal that no key opens is carried as it is and never overwritten.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { LRUCache } from "lru-cache";
import { fromJson, type SiteData, toJson, type WorkspaceRecord } from "./record.ts";

/** How a record becomes the text a store keeps, and back. */
export interface RecordCodec {
  encode(record: WorkspaceRecord): string;
  /** The record of stored text already parsed as JSON (the codec may fill it in place). */
  decode(parsed: Record<string, unknown>): Record<string, unknown>;
}

const VERSION = "v1";
const NONCE = 12;
const TAG = 16;
const INFO = "selenium-flow store.key v1";

/** A 256-bit key from a store.key of at least 32 characters (HKDF-SHA256; the salt is fixed so every server of a group derives the same key). */
export function deriveKey(secret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), "selenium-flow", INFO, 32));
}

/** The field a sealed record carries instead of its site data. */
export const SEALED_FIELD = "site_data_sealed";
/** The field a sealed record carries instead of the workspace's own secrets. */
export const SECRETS_FIELD = "secrets_sealed";

/** Characters of seals (and the JSON they hold) kept opened; a seal larger than a quarter of it is not kept. */
const OPENED_CHARS = 8 * 1024 * 1024;
const OPENED_MAX = 64;
/** Nonces drawn from the system's random source at a time (each is used once). */
const NONCES_AT_ONCE = 256;

interface Opened {
  sealed: string;
  json: string;
  /** Whether the current key sealed it (an old key's seal is re-sealed at the next write). */
  current: boolean;
}

export class SealCodec implements RecordCodec {
  private readonly keys: Buffer[];
  /** The seal each decoded (or sealed) snapshot came from, so an update that kept it re-seals nothing. */
  private readonly seals = new WeakMap<object, string>();
  /**
   * Seals this process opened or made lately, by their nonce (unique per seal, and cheap to look up
   * where the whole seal is not: a long string hashes in full): a record read again, or read back
   * after this process wrote it, is not decrypted again. A hit counts only when the whole seal matches.
   */
  private readonly opened = new LRUCache<string, Opened>({
    max: OPENED_MAX,
    maxSize: OPENED_CHARS,
    maxEntrySize: OPENED_CHARS / 4,
    sizeCalculation: (o) => o.sealed.length + o.json.length,
  });
  private nonces = Buffer.alloc(0);
  private nonceAt = 0;
  private readonly told = new Set<string>();

  /** `keys[0]` seals; every key is tried to open (the others are old keys being rotated out). */
  constructor(
    keys: Buffer[],
    /** Told once for each snapshot sealed under another key. */
    private readonly warn: (message: string) => void = () => undefined,
    /** Handed each workspace's own secrets as a record is read (the redactor learns their values). */
    private readonly openedSecrets: (secrets: object) => void = () => undefined,
  ) {
    if (keys.length === 0) throw new Error("a seal needs a key");
    this.keys = keys;
  }

  encode(record: WorkspaceRecord): string {
    return JSON.stringify({ ...this.siteDataPart(record), ...this.secretsPart(record) });
  }

  private siteDataPart(record: WorkspaceRecord): Record<string, unknown> {
    const { unreadable } = record as WorkspaceRecord & { unreadable?: string };
    // A snapshot no key opened is written back as it was, whatever the call did to site_data.
    if (typeof unreadable === "string")
      return { ...record, unreadable: undefined, site_data: {}, [SEALED_FIELD]: unreadable };
    const data = record.site_data;
    if (!data || Object.keys(data).length === 0) return { ...record, unreadable: undefined, site_data: {} };
    let sealed = this.seals.get(data);
    if (sealed === undefined) {
      const json = JSON.stringify(data);
      sealed = this.seal(json);
      this.seals.set(data, sealed);
      this.remember({ sealed, json, current: true });
    }
    return { ...record, unreadable: undefined, site_data: {}, [SEALED_FIELD]: sealed };
  }

  /** The workspace's own secrets, sealed as the site data is (never written out opened). */
  private secretsPart(record: WorkspaceRecord): Record<string, unknown> {
    const plain = { secrets: undefined, secrets_unreadable: undefined };
    if (typeof record.secrets_unreadable === "string")
      return { ...plain, [SECRETS_FIELD]: record.secrets_unreadable };
    const secrets = record.secrets;
    if (!secrets || Object.keys(secrets).length === 0) return plain;
    let sealed = this.seals.get(secrets);
    if (sealed === undefined) {
      sealed = this.seal(JSON.stringify(secrets));
      this.seals.set(secrets, sealed);
    }
    return { ...plain, [SECRETS_FIELD]: sealed };
  }

  decode(parsed: Record<string, unknown>): Record<string, unknown> {
    const secrets = parsed[SECRETS_FIELD];
    if (typeof secrets === "string") {
      const opened = this.open(secrets);
      parsed[SECRETS_FIELD] = undefined;
      if (opened === null) parsed.secrets_unreadable = secrets;
      else {
        const value = JSON.parse(opened.json) as object;
        if (opened.current) this.seals.set(value, secrets);
        this.openedSecrets(value);
        parsed.secrets = value;
      }
    }
    const sealed = parsed[SEALED_FIELD];
    if (typeof sealed !== "string") return parsed; // a record written before sealing: sealed at its next write
    const opened = this.open(sealed);
    if (opened === null) {
      if (!this.told.has(sealed)) {
        this.told.add(sealed);
        this.warn(
          "a workspace's saved site data is sealed under another key: it is kept as it is and not restored (store.key)",
        );
      }
      return { ...parsed, [SEALED_FIELD]: undefined, site_data: {}, unreadable: sealed };
    }
    // Parsed afresh for every read, as an unsealed record is: no two reads share an object.
    const data = JSON.parse(opened.json) as SiteData;
    // Only a seal of the current key is written back as it is; an old key's is re-sealed.
    if (opened.current) this.seals.set(data, sealed);
    // What readRecord parsed is its own: filled in place rather than copied (fromJson reads it next).
    parsed.site_data = data;
    return parsed;
  }

  private seal(plain: string): string {
    const nonce = this.nonce();
    const cipher = createCipheriv("aes-256-gcm", this.keys[0] as Buffer, nonce);
    const body = cipher.update(plain, "utf8");
    cipher.final();
    return `${VERSION}.${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64")}`;
  }

  /** A fresh random nonce, never handed out twice. */
  private nonce(): Buffer {
    if (this.nonceAt + NONCE > this.nonces.length) {
      this.nonces = randomBytes(NONCE * NONCES_AT_ONCE);
      this.nonceAt = 0;
    }
    const out = this.nonces.subarray(this.nonceAt, this.nonceAt + NONCE);
    this.nonceAt += NONCE;
    return out;
  }

  /** What a seal holds, or null when no key opens it. */
  private open(sealed: string): Opened | null {
    // The nonce's 12 bytes are the first 16 base64 characters.
    const id = sealed.slice(VERSION.length + 1, VERSION.length + 17);
    const hit = this.opened.get(id);
    if (hit !== undefined && hit.sealed === sealed) return hit;
    if (!sealed.startsWith(`${VERSION}.`)) return null;
    const raw = Buffer.from(sealed.slice(VERSION.length + 1), "base64");
    if (raw.length < NONCE + TAG) return null;
    for (const [i, key] of this.keys.entries()) {
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, NONCE));
        decipher.setAuthTag(raw.subarray(raw.length - TAG));
        const json = Buffer.concat([
          decipher.update(raw.subarray(NONCE, raw.length - TAG)),
          decipher.final(),
        ]).toString("utf8");
        const opened = { sealed, json, current: i === 0 };
        this.remember(opened);
        return opened;
      } catch {
        // not this key
      }
    }
    return null;
  }

  private remember(opened: Opened): void {
    this.opened.set(opened.sealed.slice(VERSION.length + 1, VERSION.length + 17), opened);
  }
}

/** A random store key, as a key file holds it. */
export function newStoreKey(): string {
  return randomBytes(32).toString("base64url");
}

/** The record stored text holds, opened with codec when there is one. */
export function readRecord(raw: unknown, codec: RecordCodec | undefined): WorkspaceRecord {
  if (!codec) return fromJson(raw);
  let parsed: unknown = raw;
  if (typeof raw === "string") {
    try {
      parsed = JSON.parse(raw);
    } catch {
      parsed = {};
    }
  }
  const obj = parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : {};
  return fromJson(codec.decode(obj as Record<string, unknown>));
}

/** The text a store keeps for record, sealed with codec when there is one. */
export function writeRecord(record: WorkspaceRecord, codec: RecordCodec | undefined): string {
  return codec ? codec.encode(record) : toJson(record);
}
