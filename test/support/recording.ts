// What the recording tests need: a real fragmented MP4 (ffmpeg, the recorder's own muxer) and the
// Grid id of a recorded browser, read from the Grid's /status by its se:videoName.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testGridUrl } from "./env.ts";

let made: string | null = null;

/**
 * A valid `mfra` box around `tfra`: what a finished recording ends with, written here from the
 * format (an `mfro` of size 16, version and flags 0, then the size of the whole `mfra`).
 */
export function trailer(tfra: Uint8Array = new Uint8Array()): Uint8Array {
  const size = 8 + tfra.length + 16;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, size);
  out.set(new TextEncoder().encode("mfra"), 4);
  out.set(tfra, 8);
  view.setUint32(8 + tfra.length, 16);
  out.set(new TextEncoder().encode("mfro"), 12 + tfra.length);
  view.setUint32(size - 4, size);
  return out;
}

/** A 2 s test-pattern MP4 ending in the mfra/mfro trailer; made once per run. */
export async function testMp4(): Promise<Uint8Array<ArrayBuffer>> {
  if (!made || !existsSync(made)) {
    const out = join(mkdtempSync(join(tmpdir(), "sf-mp4-")), "out.mp4");
    const proc = Bun.spawn(
      [
        "ffmpeg",
        "-loglevel",
        "error",
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=320x240:rate=10",
        "-t",
        "2",
        "-c:v",
        "libx264",
        "-pix_fmt",
        "yuv420p",
        "-movflags",
        "frag_keyframe+empty_moov",
        out,
      ],
      { stderr: "pipe" },
    );
    if ((await proc.exited) !== 0)
      throw new Error(`ffmpeg failed: ${await new Response(proc.stderr).text()}`);
    made = out;
  }
  return new Uint8Array(readFileSync(made));
}

/** The Grid id of the live browser recorded under `videoName` (se:videoName), or null. */
export async function gridIdByVideoName(videoName: string): Promise<string | null> {
  const status = (await (await fetch(`${testGridUrl}/status`)).json()) as any;
  for (const node of status.value?.nodes ?? []) {
    for (const slot of node.slots ?? []) {
      const s = slot.session;
      if (s?.capabilities?.["se:videoName"] === videoName && s.capabilities["se:recordVideo"] === true) {
        return s.sessionId as string;
      }
    }
  }
  return null;
}
