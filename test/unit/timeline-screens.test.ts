// A screen is kept only when it pictures a page known to hold no typed secret: the check follows
// the picture (test/unit/screen-order.test.ts), and a navigation that began meanwhile (after which the check may have
// looked at the next page, not the one drawn) throws the picture away. A fake socket orders the
// answers; the real browser is tested in test/integration/timeline.test.ts.
import { describe, expect, test } from "bun:test";
import type { BidiSocket } from "../../src/grid/bidi.ts";
import { jpegOf } from "../../src/timeline/screens.ts";
import { jpeg } from "../support/images.ts";

const JPEG = Buffer.from(await jpeg(64, 32)).toString("base64");

/** A held connection whose socket answers as `answer` says; `moves` navigations begin during the picture. */
function held(opts: { typedIn?: string[]; moveDuringPicture?: boolean }) {
  const h = { navigationCount: 0, socket: null as unknown as BidiSocket, sent: [] as string[] };
  h.socket = {
    send: async (method: string, params: any) => {
      h.sent.push(method);
      await Bun.sleep(1);
      if (method === "browsingContext.getTree") {
        return {
          contexts: [{ context: "tab", url: "", children: [{ context: "frame", url: "", children: [] }] }],
        };
      }
      if (method === "script.callFunction") {
        const typed = (opts.typedIn ?? []).includes(params.target.context);
        return { type: "success", result: { type: "boolean", value: typed } };
      }
      if (method === "browsingContext.captureScreenshot") {
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
  test("of a page that holds no typed secret and stayed put: the JPEG, the picture sent first", async () => {
    const h = held({});
    const got = await jpegOf(h, "tab", "b");
    expect(got).toEqual(new Uint8Array(Buffer.from(JPEG, "base64")));
    expect(h.sent[0]).toBe("browsingContext.captureScreenshot");
    // Every document of the tab is asked, frames included.
    expect(h.sent.filter((m) => m === "script.callFunction")).toHaveLength(2);
  });

  test("of a page whose frame holds a typed secret: thrown away", async () => {
    expect(await jpegOf(held({ typedIn: ["frame"] }), "tab", "b")).toBe("typed");
  });

  test("of a page that moved on while it was drawn: thrown away", async () => {
    expect(await jpegOf(held({ moveDuringPicture: true }), "tab", "b")).toBe("moved");
  });
});
