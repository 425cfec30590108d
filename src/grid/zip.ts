// The one-file zip archives the Grid's file endpoints speak: an upload is sent as one, and an older
// Grid answers a download with one. fflate writes and reads them (stored on the way out: the bytes
// are often already compressed, and the Grid unpacks either way).
import { unzipSync, zipSync } from "fflate";

/** A zip holding one file, stored. */
export function zipOne(name: string, data: Uint8Array): Uint8Array {
  return zipSync({ [name]: [data, { level: 0 }] });
}

/** The first file of a zip: its name and bytes. */
export function unzipOne(zip: Uint8Array): { name: string; data: Uint8Array } {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip);
  } catch {
    throw new Error("not a zip archive");
  }
  const name = Object.keys(files)[0];
  if (name === undefined) throw new Error("not a zip archive");
  return { name, data: files[name] as Uint8Array };
}
