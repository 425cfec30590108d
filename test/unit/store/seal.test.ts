// The seal's caches (src/store/seal.ts): a new snapshot gets a new nonce, a kept one its seal
// again, and a seal is served from the cache only when it matches whole.
import { describe, expect, test } from "bun:test";
import { emptyRecord, type WorkspaceRecord } from "../../../src/store/record.ts";
import {
  deriveKey,
  readRecord,
  SEALED_FIELD,
  SECRETS_FIELD,
  SealCodec,
  writeRecord,
} from "../../../src/store/seal.ts";

const key = deriveKey("unit-seal-key-0123456789abcdef0123456789");
const record = (theme: string): WorkspaceRecord => ({
  ...emptyRecord(),
  session_id: "s1",
  site_data: { saved_at: 1, origins: { "https://a.example.test": { local: { theme } } } },
});
const sealOf = (text: string) => (JSON.parse(text) as Record<string, string>)[SEALED_FIELD] as string;

describe("SealCodec", () => {
  test("the same snapshot keeps its seal; a new one, even equal, gets a fresh nonce", () => {
    const codec = new SealCodec([key]);
    const r = record("dark");
    const first = sealOf(writeRecord(r, codec));
    expect(sealOf(writeRecord({ ...r, opened_at: 2 }, codec))).toBe(first);
    const again = sealOf(writeRecord({ ...r, site_data: { ...r.site_data } }, codec));
    expect(again).not.toBe(first);
    expect(again.slice(0, 19)).not.toBe(first.slice(0, 19));
    // What it wrote reads back, and an update of what it read keeps the seal.
    const back = readRecord(writeRecord(r, codec), codec);
    expect(back.site_data).toEqual(r.site_data);
    expect(sealOf(writeRecord({ ...back, opened_at: 3 }, codec))).toBe(first);
  });

  test("a seal that shares a cached seal's nonce but not its body is not opened from the cache", () => {
    const codec = new SealCodec([key]);
    const text = writeRecord(record("dark"), codec);
    const sealed = sealOf(text);
    expect(readRecord(text, codec).site_data).toEqual(record("dark").site_data);
    // One body character changed: the nonce (the cache's key) is the same, the tag no longer fits.
    const at = sealed.length - 30;
    const forged = sealed.slice(0, at) + (sealed[at] === "A" ? "B" : "A") + sealed.slice(at + 1);
    const read = readRecord(JSON.stringify({ ...JSON.parse(text), [SEALED_FIELD]: forged }), codec);
    expect(read.site_data).toEqual({});
    expect(read.unreadable).toBe(forged);
  });

  test("another codec with the same key opens it; one with another key does not", () => {
    const text = writeRecord(record("light"), new SealCodec([key]));
    expect(readRecord(text, new SealCodec([key])).site_data).toEqual(record("light").site_data);
    const other = new SealCodec([deriveKey("another-unit-seal-key-0123456789abcdef")]);
    expect(readRecord(text, other).unreadable).toBe(sealOf(text));
  });

  test("a workspace's own secrets are sealed at rest: the stored text holds no value, and reads back whole", () => {
    const codec = new SealCodec([key]);
    const secrets = {
      shop: {
        allowed_urls: ["https://shop.example.test"],
        keys: { password: 'p@$$W0rd!#%^&*()_+{}"' },
        description: "",
        at: 1,
      },
    };
    const text = writeRecord({ ...record("dark"), secrets }, codec);
    expect(text).not.toContain("W0rd");
    expect(text).not.toContain("shop.example.test");
    expect(typeof JSON.parse(text)[SECRETS_FIELD]).toBe("string");
    expect(readRecord(text, codec).secrets).toEqual(secrets);
    // Another key opens nothing: carried as it is, written back unchanged, never read as empty.
    const other = new SealCodec([deriveKey("another-seal-key-0123456789abcdef012345")]);
    const read = readRecord(text, other);
    expect(read.secrets).toBeUndefined();
    expect(read.secrets_unreadable).toBe(JSON.parse(text)[SECRETS_FIELD]);
    expect(JSON.parse(writeRecord(read, other))[SECRETS_FIELD]).toBe(JSON.parse(text)[SECRETS_FIELD]);
  });
});
