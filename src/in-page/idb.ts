// Page side, standalone: IndexedDB in a snapshot, the read and write (self-contained functions sent
// as text, run in the sandbox of a page on the origin) and the shape they answer. Values cross as
// tagged JSON: a plain object or array stays itself; anything JSON cannot carry (NaN, -0, undefined, BigInt, Date,
// RegExp, Map, Set, bytes, an object with a "$" key) becomes {$: tag, ...}. What structured clone
// carries but a snapshot cannot (a Blob, a File, a CryptoKey) skips its record, named by store.

export interface IdbIndex {
  name: string;
  keyPath: string | string[];
  unique: boolean;
  multiEntry: boolean;
}

export interface IdbStore {
  name: string;
  keyPath: string | string[] | null;
  autoIncrement: boolean;
  indexes: IdbIndex[];
  /** [key, value], both tagged JSON, in key order. */
  records: Array<[unknown, unknown]>;
}

export interface IdbDatabase {
  name: string;
  version: number;
  stores: IdbStore[];
}

export interface IdbSkip {
  database: string;
  store: string;
  reason: string;
}

export interface IdbRead {
  dbs: IdbDatabase[];
  skipped: IdbSkip[];
}

/** In the sandbox of a page on the origin: every database, whole. */
export async function readIdb(): Promise<IdbRead> {
  const out: IdbRead = { dbs: [], skipped: [] };
  if (typeof indexedDB === "undefined" || typeof indexedDB.databases !== "function") return out;
  class Cannot extends Error {}
  const b64 = (bytes: Uint8Array): string => {
    let s = "";
    for (let i = 0; i < bytes.length; i += 0x8000)
      s += String.fromCharCode.apply(null, Array.from(bytes.subarray(i, i + 0x8000)));
    return btoa(s);
  };
  const enc = (v: unknown, seen: Set<object>): unknown => {
    if (v === null) return null;
    switch (typeof v) {
      case "string":
      case "boolean":
        return v;
      case "number":
        if (Number.isNaN(v)) return { $: "num", v: "NaN" };
        if (!Number.isFinite(v)) return { $: "num", v: v > 0 ? "Infinity" : "-Infinity" };
        return Object.is(v, -0) ? { $: "num", v: "-0" } : v;
      case "undefined":
        return { $: "undef" };
      case "bigint":
        return { $: "bigint", v: v.toString() };
      case "object":
        break;
      default:
        throw new Cannot(typeof v);
    }
    const o = v as object;
    if (seen.has(o)) throw new Cannot("a value that refers to itself");
    seen.add(o);
    try {
      const tag = Object.prototype.toString.call(o).slice(8, -1);
      if (Array.isArray(o)) return o.map((x) => enc(x, seen));
      if (o instanceof Date) return { $: "date", v: enc(o.getTime(), seen) };
      if (o instanceof RegExp) return { $: "re", s: o.source, f: o.flags };
      if (o instanceof Map) return { $: "map", v: [...o].map(([k, x]) => [enc(k, seen), enc(x, seen)]) };
      if (o instanceof Set) return { $: "set", v: [...o].map((x) => enc(x, seen)) };
      if (o instanceof ArrayBuffer) return { $: "ab", v: b64(new Uint8Array(o)) };
      if (ArrayBuffer.isView(o))
        return { $: "ta", t: tag, v: b64(new Uint8Array(o.buffer, o.byteOffset, o.byteLength)) };
      if (tag !== "Object") throw new Cannot(`a ${tag}`);
      const plain: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(o)) plain[k] = enc(x, seen);
      return Object.hasOwn(plain, "$") ? { $: "obj", v: plain } : plain;
    } finally {
      seen.delete(o);
    }
  };
  const done = <T>(r: IDBRequest<T>): Promise<T> =>
    new Promise((res, rej) => {
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
  for (const info of await indexedDB.databases()) {
    if (!info.name) continue;
    const name = info.name;
    const db = await new Promise<IDBDatabase | null>((res) => {
      const r = indexedDB.open(name);
      // Gone since it was listed: opening would create it.
      r.onupgradeneeded = () => r.transaction?.abort();
      r.onsuccess = () => res(r.result);
      r.onerror = () => res(null);
    });
    if (!db) continue;
    try {
      const entry: IdbDatabase = { name, version: db.version, stores: [] };
      const names = Array.from(db.objectStoreNames);
      const tx = names.length ? db.transaction(names, "readonly") : null;
      for (const sn of names) {
        const s = (tx as IDBTransaction).objectStore(sn);
        const indexes: IdbIndex[] = Array.from(s.indexNames).map((n) => {
          const ix = s.index(n);
          return { name: n, keyPath: ix.keyPath, unique: ix.unique, multiEntry: ix.multiEntry };
        });
        const [keys, values] = await Promise.all([done(s.getAllKeys()), done(s.getAll())]);
        const records: Array<[unknown, unknown]> = [];
        const cannot = new Map<string, number>();
        keys.forEach((k, i) => {
          try {
            records.push([enc(k, new Set()), enc(values[i], new Set())]);
          } catch (err) {
            if (!(err instanceof Cannot)) throw err;
            cannot.set(err.message, (cannot.get(err.message) ?? 0) + 1);
          }
        });
        for (const [what, n] of cannot)
          out.skipped.push({
            database: name,
            store: sn,
            reason: `${n} record${n === 1 ? "" : "s"} holding ${what} cannot be saved`,
          });
        entry.stores.push({ name: sn, keyPath: s.keyPath, autoIncrement: s.autoIncrement, indexes, records });
      }
      out.dbs.push(entry);
    } finally {
      db.close();
    }
  }
  return out;
}

/** In the sandbox of a page on the origin, given the databases as JSON: recreates each; returns the records put. */
export async function writeIdb(json: string): Promise<number> {
  const dbs = JSON.parse(json) as IdbDatabase[];
  const bytes = (s: string): Uint8Array => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
  const views: Record<string, new (b: ArrayBuffer) => unknown> = {
    Int8Array,
    Uint8Array,
    Uint8ClampedArray,
    Int16Array,
    Uint16Array,
    Int32Array,
    Uint32Array,
    Float32Array,
    Float64Array,
    BigInt64Array,
    BigUint64Array,
    DataView,
  };
  const dec = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(dec);
    if (v === null || typeof v !== "object") return v;
    const o = v as Record<string, unknown>;
    const fields = (from: Record<string, unknown>) => {
      const plain: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(from)) plain[k] = dec(x);
      return plain;
    };
    if (!Object.hasOwn(o, "$")) return fields(o);
    const x = o.v;
    switch (o.$) {
      case "num":
        return x === "-0" ? -0 : Number(x);
      case "undef":
        return undefined;
      case "bigint":
        return BigInt(x as string);
      case "date":
        return new Date(dec(x) as number);
      case "re":
        return new RegExp(o.s as string, o.f as string);
      case "map":
        return new Map((x as Array<[unknown, unknown]>).map(([k, y]) => [dec(k), dec(y)]));
      case "set":
        return new Set((x as unknown[]).map(dec));
      case "ab":
        return bytes(x as string).buffer;
      case "ta": {
        const View = views[o.t as string] ?? Uint8Array;
        return new View(bytes(x as string).buffer as ArrayBuffer);
      }
      default:
        return fields(x as Record<string, unknown>);
    }
  };
  let put = 0;
  for (const d of dbs) {
    await new Promise((res) => {
      const r = indexedDB.deleteDatabase(d.name);
      r.onsuccess = r.onerror = res;
    });
    const db = await new Promise<IDBDatabase>((res, rej) => {
      const r = indexedDB.open(d.name, Math.max(1, d.version));
      r.onupgradeneeded = () => {
        for (const s of d.stores) {
          const opts: IDBObjectStoreParameters = { autoIncrement: s.autoIncrement };
          if (s.keyPath !== null) opts.keyPath = s.keyPath;
          const store = r.result.createObjectStore(s.name, opts);
          for (const ix of s.indexes)
            store.createIndex(ix.name, ix.keyPath, { unique: ix.unique, multiEntry: ix.multiEntry });
        }
      };
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
    try {
      const names = d.stores.map((s) => s.name);
      if (!names.length) continue;
      const tx = db.transaction(names, "readwrite");
      for (const s of d.stores) {
        const store = tx.objectStore(s.name);
        for (const [k, v] of s.records) {
          if (s.keyPath === null) store.put(dec(v), dec(k) as IDBValidKey);
          else store.put(dec(v));
          put++;
        }
      }
      await new Promise((res, rej) => {
        tx.oncomplete = res;
        tx.onerror = () => rej(tx.error);
        tx.onabort = () => rej(tx.error);
      });
    } finally {
      db.close();
    }
  }
  return put;
}
