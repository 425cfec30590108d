// The one-file zip archives the Grid's file endpoints speak: an upload is sent as one, and an older
// Grid answers a download with one. Stored (uncompressed) on the way out; stored or deflated in.
import { inflateRawSync } from "node:zlib";

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;

/** A zip holding one file, stored. */
export function zipOne(name: string, data: Uint8Array): Uint8Array {
  const fileName = new TextEncoder().encode(name);
  const crc = Bun.hash.crc32(data) >>> 0;
  const local = new Uint8Array(30 + fileName.length);
  const lv = new DataView(local.buffer);
  lv.setUint32(0, LOCAL, true);
  lv.setUint16(4, 20, true); // version needed
  lv.setUint16(6, 0x0800, true); // UTF-8 names
  lv.setUint16(8, 0, true); // stored
  lv.setUint32(14, crc, true);
  lv.setUint32(18, data.length, true);
  lv.setUint32(22, data.length, true);
  lv.setUint16(26, fileName.length, true);
  local.set(fileName, 30);
  const central = new Uint8Array(46 + fileName.length);
  const cv = new DataView(central.buffer);
  cv.setUint32(0, CENTRAL, true);
  cv.setUint16(4, 20, true);
  cv.setUint16(6, 20, true);
  cv.setUint16(8, 0x0800, true);
  cv.setUint32(16, crc, true);
  cv.setUint32(20, data.length, true);
  cv.setUint32(24, data.length, true);
  cv.setUint16(28, fileName.length, true);
  central.set(fileName, 46);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, END, true);
  ev.setUint16(8, 1, true);
  ev.setUint16(10, 1, true);
  ev.setUint32(12, central.length, true);
  ev.setUint32(16, local.length + data.length, true);
  const out = new Uint8Array(local.length + data.length + central.length + end.length);
  out.set(local, 0);
  out.set(data, local.length);
  out.set(central, local.length + data.length);
  out.set(end, local.length + data.length + central.length);
  return out;
}

/** The first file of a zip: its name and bytes. Sizes come from the central directory, which is right even when the entry streamed. */
export function unzipOne(zip: Uint8Array): { name: string; data: Uint8Array } {
  const v = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let endAt = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 65_535); i--) {
    if (v.getUint32(i, true) === END) {
      endAt = i;
      break;
    }
  }
  if (endAt < 0) throw new Error("not a zip archive");
  const cd = v.getUint32(endAt + 16, true);
  if (v.getUint32(cd, true) !== CENTRAL) throw new Error("not a zip archive");
  const method = v.getUint16(cd + 10, true);
  const compressed = v.getUint32(cd + 20, true);
  const nameLen = v.getUint16(cd + 28, true);
  const localAt = v.getUint32(cd + 42, true);
  const name = new TextDecoder().decode(zip.subarray(cd + 46, cd + 46 + nameLen));
  if (v.getUint32(localAt, true) !== LOCAL) throw new Error("not a zip archive");
  const dataAt = localAt + 30 + v.getUint16(localAt + 26, true) + v.getUint16(localAt + 28, true);
  const raw = zip.subarray(dataAt, dataAt + compressed);
  if (method === 0) return { name, data: raw.slice() };
  if (method === 8) return { name, data: new Uint8Array(inflateRawSync(raw)) };
  throw new Error(`a zip entry compressed with method ${method}`);
}
