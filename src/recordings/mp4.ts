// Whether a recording the Grid made is finished. The recorder's ffmpeg writes a fragmented MP4 and
// closes it with an `mfra` box whose last 16 bytes are an `mfro` box: size 16, "mfro", version and
// flags 0, then the size of the whole `mfra` (FFmpeg movenc.c, mov_write_mfra_tag). A file still
// being recorded, or still being copied, cannot end that way; only a recording whose ffmpeg was
// killed has none (the collector's quiet-and-dead rule files those).
import { open } from "node:fs/promises";

export const TRAILER = 16;
const MFRO_HEAD = new Uint8Array([0, 0, 0, 16, 0x6d, 0x66, 0x72, 0x6f, 0, 0, 0, 0]);

/** True when `path` ends in an `mfro` that names a real `mfra`. Any I/O error is false. */
export async function isComplete(path: string): Promise<boolean> {
  let fd: import("node:fs/promises").FileHandle;
  try {
    fd = await open(path, "r");
  } catch {
    return false;
  }
  try {
    const { size } = await fd.stat();
    if (size < 8 + TRAILER) return false;
    const tail = new Uint8Array(TRAILER);
    await fd.read(tail, 0, TRAILER, size - TRAILER);
    for (let i = 0; i < MFRO_HEAD.length; i++) if (tail[i] !== MFRO_HEAD[i]) return false;
    const mfra = new DataView(tail.buffer).getUint32(12);
    if (mfra < 8 + TRAILER || mfra > size) return false;
    const head = new Uint8Array(8);
    await fd.read(head, 0, 8, size - mfra);
    const boxType = String.fromCharCode(head[4]!, head[5]!, head[6]!, head[7]!);
    return boxType === "mfra" && new DataView(head.buffer).getUint32(0) === mfra;
  } catch {
    return false;
  } finally {
    await fd.close().catch(() => undefined);
  }
}
