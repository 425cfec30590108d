// No screen is wider than SCREEN_WIDTH, whatever the window.
import { describe, expect, test } from "bun:test";
import type { BidiSocket } from "../../../src/grid/bidi.ts";
import { fitWidth, jpegOf, SCREEN_WIDTH } from "../../../src/timeline/screens.ts";
import { jpeg } from "../../support/images.ts";

/**
 * A browser where a bound write runs while the picture is drawn: the document is marked when the
 * capture begins, and the picture (answered later) shows what was typed meanwhile.
 */
function writingDuringPicture(picture: string, write = true) {
  let marked = false;
  const h = { navigationCount: 0, socket: null as unknown as BidiSocket };
  h.socket = {
    send: async (method: string) => {
      if (method === "browsingContext.getTree") {
        return { contexts: [{ context: "tab", url: "", children: [] }] };
      }
      if (method === "script.callFunction") {
        const now = marked;
        await Bun.sleep(1);
        return { type: "success", result: { type: "boolean", value: now } };
      }
      if (method === "browsingContext.captureScreenshot") {
        // The write marks the document a moment after the capture began, then types; the
        // picture, answered after, shows the typing.
        await Bun.sleep(10);
        marked = write;
        await Bun.sleep(10);
        return { data: picture };
      }
      throw new Error(`unexpected ${method}`);
    },
  } as unknown as BidiSocket;
  return h;
}

describe("screen size", () => {
  test("a 7680x4320 window gives a picture at most 1280 px wide, a small one is kept as it is", async () => {
    const big = await jpeg(7680, 4320);
    const fitted = await jpegOf(writingDuringPicture(Buffer.from(big).toString("base64"), false), "tab");
    if (!(fitted instanceof Uint8Array)) throw new Error(`no picture: ${fitted}`);
    const meta = await new Bun.Image(fitted).metadata();
    expect(meta.width).toBe(SCREEN_WIDTH);
    expect(meta.height).toBe(720);
    expect(meta.format).toBe("jpeg");
    // A tenth of the full size's bytes at most (36x fewer pixels).
    expect(fitted.length).toBeLessThan(big.length / 10);
    const small = await jpeg(800, 600);
    expect(await fitWidth(small)).toBe(small);
  });
});
