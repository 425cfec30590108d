// The record each key's stored text was last parsed to (or written from), so a store parses a text
// once: store.update reads the text its last write left, and a zod parse of it on every read would
// cost more than the write. Records are never changed in place, so one object serves every read.
import { LRUCache } from "lru-cache";
import type { WorkspaceRecord } from "./record.ts";
import { type RecordCodec, readRecord } from "./seal.ts";

/** Keys kept; a text longer than MAX_TEXT (a big snapshot) is parsed each time rather than held. */
const MAX_KEYS = 256;
const MAX_TEXT = 64 * 1024;

export class ParsedRecords {
  private readonly byKey = new LRUCache<string, { text: string; record: WorkspaceRecord }>({ max: MAX_KEYS });

  constructor(private readonly codec: RecordCodec | undefined) {}

  /** The record `text` holds: the one parsed or written before while the key still holds that text. */
  read(key: string, text: string): WorkspaceRecord {
    const hit = this.byKey.get(key);
    if (hit !== undefined && hit.text === text) return hit.record;
    const record = readRecord(text, this.codec);
    this.keep(key, text, record);
    return record;
  }

  /** `record` was written as `text`: a read of that text is this record. */
  wrote(key: string, text: string, record: WorkspaceRecord): void {
    // A seal no key opens is written back as it was, whatever the record held: read it from the text.
    if (record.unreadable !== undefined) this.forget(key);
    else this.keep(key, text, record);
  }

  forget(key: string): void {
    this.byKey.delete(key);
  }

  private keep(key: string, text: string, record: WorkspaceRecord): void {
    if (text.length > MAX_TEXT) this.byKey.delete(key);
    else this.byKey.set(key, { text, record });
  }
}
