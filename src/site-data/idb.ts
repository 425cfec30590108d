// IndexedDB in a snapshot, server side: the page's read and write as text (src/in-page/idb.ts), and
// the stored shape read back defensively for a restore and one site's detail.
import { type IdbDatabase, readIdb, writeIdb } from "../in-page/idb.ts";

export const READ_IDB = readIdb.toString();
export const WRITE_IDB = writeIdb.toString();

/** A stored origin entry's databases, read defensively. */
export function storedIdb(entry: unknown): IdbDatabase[] {
  const dbs = (entry as { idb?: unknown } | null)?.idb;
  return Array.isArray(dbs) ? (dbs as IdbDatabase[]).filter((d) => d && typeof d.name === "string") : [];
}

/** A database as one site's detail shows it: each store's shape and records, key and value as JSON text. */
export function idbDetail(dbs: IdbDatabase[]) {
  return dbs.map((d) => ({
    name: String(d.name),
    version: Number(d.version) || 1,
    stores: (Array.isArray(d.stores) ? d.stores : []).map((s) => ({
      name: String(s.name),
      key_path: s.keyPath ?? null,
      auto_increment: s.autoIncrement === true,
      indexes: (Array.isArray(s.indexes) ? s.indexes : []).map((i) => ({
        name: String(i.name),
        key_path: i.keyPath,
        unique: i.unique === true,
        multi_entry: i.multiEntry === true,
      })),
      records: (Array.isArray(s.records) ? s.records : []).map(([k, v]) => ({
        key: JSON.stringify(k),
        value: JSON.stringify(v) ?? "",
      })),
    })),
  }));
}
