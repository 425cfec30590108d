// A screen pictures the tab as it is: nothing is asked of the page (after a bound write nothing in it
// holds a secret, spec §1.17); no picture while a bound write runs; a navigation that began meanwhile
// throws the picture away.
import { describe, expect, test } from "bun:test";
import type { BidiSocket } from "../../../src/grid/bidi.ts";
import { jpegOf } from "../../../src/timeline/screens.ts";
import { jpeg } from "../../support/images.ts";

const JPEG = Buffer.from(await jpeg(64, 32)).toString("base64");

function held(opts: { moveDuringPicture?: boolean; writing?: boolean }) {
  const h = {
    navigationCount: 0,
    writing: opts.writing ?? false,
    socket: null as unknown as BidiSocket,
    sent: [] as string[],
  };
  h.socket = {
    send: async (method: string, params: any) => {
      await Bun.sleep(1);
      if (method === "browsingContext.captureScreenshot") {
        h.sent.push(method);
        expect(params.format).toEqual({ type: "image/jpeg", quality: 0.5 });
        if (opts.moveDuringPicture) h.navigationCount++;
        return { data: JPEG };
      }
      throw new Error(`unexpected ${method}`);
    },
  } as unknown as BidiSocket;
  return h;
}

describe("a screen", () => {
  test("is captured with nothing asked of the page", async () => {
    const h = held({});
    const got = await jpegOf(h, "tab");
    expect(got).toEqual(new Uint8Array(Buffer.from(JPEG, "base64")));
    expect(h.sent).toEqual(["browsingContext.captureScreenshot"]);
  });

  test("is not taken while a bound write runs", async () => {
    const h = held({ writing: true });
    expect(await jpegOf(h, "tab")).toBe("typed");
    expect(h.sent).toEqual([]);
  });

  test("of a page that moved on while it was drawn: thrown away", async () => {
    expect(await jpegOf(held({ moveDuringPicture: true }), "tab")).toBe("moved");
  });
});
