// Covering boxes of a PNG after it was captured: decoded, the boxes filled with grey, encoded again
// (node:zlib; 8-bit RGB or RGBA, not interlaced, as browsers capture). Any other kind of PNG comes
// back as one grey picture of its size: what cannot be covered is not shown.
import { deflateSync, inflateSync } from "node:zlib";

export interface PixelBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

const SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
const GREY = 128;

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** The picture's rows, unfiltered; null for a kind this file does not read. */
export function decode(png: Buffer): { width: number; height: number; bpp: number; rows: Uint8Array } | null {
  if (png.length < 33 || !png.subarray(0, 8).equals(SIGNATURE)) return null;
  let at = 8;
  let width = 0;
  let height = 0;
  let bpp = 0;
  const idat: Buffer[] = [];
  while (at + 8 <= png.length) {
    const len = png.readUInt32BE(at);
    const type = png.toString("latin1", at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + len);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const [depth, color, , , interlace] = [data[8], data[9], data[10], data[11], data[12]];
      if (depth !== 8 || interlace !== 0 || (color !== 2 && color !== 6)) return null;
      bpp = color === 6 ? 4 : 3;
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    at += 12 + len;
  }
  if (!bpp || !width || !height) return null;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  if (raw.length < height * (stride + 1)) return null;
  const rows = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    for (let i = 0; i < stride; i++) {
      const x = raw[src + i] as number;
      const a = i >= bpp ? (rows[row + i - bpp] as number) : 0;
      const b = y > 0 ? (rows[row - stride + i] as number) : 0;
      const c = y > 0 && i >= bpp ? (rows[row - stride + i - bpp] as number) : 0;
      const v =
        filter === 1
          ? x + a
          : filter === 2
            ? x + b
            : filter === 3
              ? x + ((a + b) >> 1)
              : filter === 4
                ? x + paeth(a, b, c)
                : x;
      rows[row + i] = v & 0xff;
    }
  }
  return { width, height, bpp, rows };
}

function encode(width: number, height: number, bpp: number, rows: Uint8Array): Buffer {
  const stride = width * bpp;
  const raw = Buffer.alloc(height * (stride + 1));
  for (let y = 0; y < height; y++) raw.set(rows.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = bpp === 4 ? 6 : 2;
  return Buffer.concat([
    SIGNATURE,
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 6 })),
    chunk("IEND", new Uint8Array()),
  ]);
}

/** The PNG with each box (in its pixels) filled grey; "all" greys the whole picture. */
export function blankBoxes(png: Buffer, boxes: PixelBox[] | "all"): Buffer {
  const pic = decode(png);
  const width = pic?.width ?? (png.length >= 24 ? png.readUInt32BE(16) : 1);
  const height = pic?.height ?? (png.length >= 24 ? png.readUInt32BE(20) : 1);
  if (!pic || boxes === "all") {
    const bpp = 4;
    const rows = new Uint8Array(width * height * bpp).fill(GREY);
    for (let i = 3; i < rows.length; i += 4) rows[i] = 255;
    return encode(width, height, bpp, rows);
  }
  const { bpp, rows } = pic;
  for (const box of boxes) {
    const x0 = Math.max(0, Math.floor(box.x));
    const y0 = Math.max(0, Math.floor(box.y));
    const x1 = Math.min(width, Math.ceil(box.x + box.width));
    const y1 = Math.min(height, Math.ceil(box.y + box.height));
    for (let y = y0; y < y1; y++) {
      for (let x = x0; x < x1; x++) {
        const p = (y * width + x) * bpp;
        rows[p] = GREY;
        rows[p + 1] = GREY;
        rows[p + 2] = GREY;
        if (bpp === 4) rows[p + 3] = 255;
      }
    }
  }
  return encode(width, height, bpp, rows);
}
