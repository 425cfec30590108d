// A screen pictures the tab with every field holding a typed secret painted without its text in
// the page itself: each document is asked to paint before the capture and to put it back after; a
// document that could hold one and would not answer means no picture; a navigation that began
// meanwhile throws the picture away; a browser where nothing was typed is just captured. A fake
// socket orders the answers; the real browser is tested in test/integration/secrets-contained.test.ts.
import { describe, expect, test } from "bun:test";
import { defaultConfig } from "../../../src/config/schema.ts";
import type { BidiSocket } from "../../../src/grid/bidi.ts";
import { SecretCatalogue } from "../../../src/secrets/catalogue.ts";
import { Redactor } from "../../../src/secrets/redactor.ts";
import { jpegOf } from "../../../src/timeline/screens.ts";
import { jpeg } from "../../support/images.ts";

const JPEG = Buffer.from(await jpeg(64, 32)).toString("base64");

/** A packed page-library answer (src/in-page/wire.ts). */
const packed = (v: unknown) => ({
  type: "success",
  result: { type: "array", value: [{ type: "string", value: JSON.stringify(v) }] },
});

function held(opts: { silent?: string[]; moveDuringPicture?: boolean }) {
  const h = { navigationCount: 0, socket: null as unknown as BidiSocket, sent: [] as string[] };
  h.socket = {
    send: async (method: string, params: any) => {
      await Bun.sleep(1);
      if (method === "browsingContext.getTree") {
        h.sent.push(method);
        return {
          contexts: [
            {
              context: "tab",
              url: "https://bank.example.test/",
              children: [{ context: "frame", url: "about:blank", children: [] }],
            },
          ],
        };
      }
      if (method === "script.callFunction") {
        const on = /coverTyped\((true|!0)\)/.test(String(params.functionDeclaration));
        h.sent.push(`${on ? "cover" : "uncover"} ${params.target.context}`);
        if ((opts.silent ?? []).includes(params.target.context)) throw new Error("no answer");
        return packed(1);
      }
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

function guard(typed: boolean) {
  const redactor = new Redactor(new SecretCatalogue(defaultConfig().secrets));
  if (typed) redactor.noteTyped("b", "w", "Welcome2024!", "https://bank.example.test");
  return { redactor, alone: true };
}

describe("a screen", () => {
  test("in a browser where nothing was typed: captured, nothing asked of the page", async () => {
    const h = held({});
    const got = await jpegOf(h, "tab", "b", guard(false));
    expect(got).toEqual(new Uint8Array(Buffer.from(JPEG, "base64")));
    expect(h.sent).toEqual(["browsingContext.captureScreenshot"]);
  });

  test("where something was typed: every document paints before the capture and puts it back after", async () => {
    const h = held({});
    const got = await jpegOf(h, "tab", "b", guard(true));
    expect(got).toBeInstanceOf(Uint8Array);
    const capture = h.sent.indexOf("browsingContext.captureScreenshot");
    expect(h.sent.slice(0, capture).sort()).toEqual(["browsingContext.getTree", "cover frame", "cover tab"]);
    expect(h.sent.slice(capture + 1).sort()).toEqual(["uncover frame", "uncover tab"]);
  });

  test("a frame that could hold a typed value and does not answer: no picture", async () => {
    expect(await jpegOf(held({ silent: ["frame"] }), "tab", "b", guard(true))).toBe("typed");
  });

  test("of a page that moved on while it was drawn: thrown away", async () => {
    expect(await jpegOf(held({ moveDuringPicture: true }), "tab", "b", guard(false))).toBe("moved");
  });
});
