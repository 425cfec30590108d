import { afterAll, describe, expect, test } from "bun:test";
import { OUTLINE } from "../../src/actions/read.ts";
import { PNG } from "../../src/actions/screenshot.ts";
import { messageOf, scrub } from "../../src/errors.ts";
import { forgetBrowser, forgetTyped, maskPieces, noteTyped, readingFor } from "../../src/pieces.ts";
import { hideValuesDeep } from "../../src/secrets/bound.ts";

const SECRET = "hunter2-Secret";

describe("hideValuesDeep", () => {
  test("keeps the symbol-keyed MCP parts, scrubbed", () => {
    const raw = Object.assign(
      { url: "https://a.example.test/", title: `t ${SECRET}` },
      { [OUTLINE]: { entries: [{ role: "textbox", name: `x ${SECRET}` }] }, [PNG]: "iVBORw0KGgo=" },
    );
    const out = hideValuesDeep([SECRET], raw) as typeof raw;
    expect(out.title).toBe("t [hidden]");
    expect(out[OUTLINE]).toEqual({ entries: [{ role: "textbox", name: "x [hidden]" }] });
    expect(out[PNG]).toBe("iVBORw0KGgo=");
  });
});

afterAll(forgetTyped);

describe("pieces of a typed value", () => {
  const TYPED = "Qm9-typed-Vx72Lk";
  test("no run of 4 or more of its characters comes back, in results, errors or log lines", () => {
    noteTyped("b1", "w1", TYPED, "https://a.example.test");
    expect(maskPieces(`a ${TYPED.slice(0, 7)}Z${TYPED.slice(7)} b`)).toBe("a [hidden]Z[hidden] b");
    expect(maskPieces("prefixes Q Qm Qm9 Qm9- Qm9-t")).toBe("prefixes Q Qm Qm9 [hidden] [hidden]");
    expect(maskPieces("nothing like it here")).toBe("nothing like it here");
    expect(hideValuesDeep([TYPED], { text: `x${TYPED.slice(3, 9)}y` })).toEqual({ text: "x[hidden]y" });
    // Only a catalogue's own typed values are masked by its hideValues.
    expect(hideValuesDeep(["other-value"], { text: `x${TYPED.slice(3, 9)}y` })).toEqual({
      text: `x${TYPED.slice(3, 9)}y`,
    });
    expect(scrub(`failed on ${TYPED.slice(2, 12)}`)).toBe("failed on [hidden]");
  });

  test("a picture's bytes are kept whole when told", () => {
    noteTyped("b1", "w1", TYPED, "https://a.example.test");
    const shot = {
      content_type: "image/png",
      data: `AAAA${TYPED.slice(0, 5)}AAAA`,
      title: TYPED.slice(0, 5),
    };
    const keep = (k: string | symbol, parent: object) => k === "data" && "content_type" in parent;
    expect(hideValuesDeep([TYPED], shot, keep)).toEqual({ ...shot, title: "[hidden]" });
  });

  test("per browser: another workspace's reads are not masked with them; the browser's end drops them", async () => {
    forgetTyped();
    noteTyped("b1", "w1", TYPED, "https://a.example.test");
    const piece = `x ${TYPED.slice(2, 9)} y`;
    const inW = (w: string, f: () => string) => readingFor(w, async () => f());
    expect(await inW("w1", () => maskPieces(piece))).toBe("x [hidden] y");
    expect(await inW("w2", () => maskPieces(piece))).toBe(piece);
    expect(await inW("w2", () => scrub(piece))).toBe(piece);
    // An error thrown in w2's call is rendered as w2's read, wherever it is rendered.
    const err = await readingFor("w2", async () => {
      throw new Error(piece);
    }).catch((e: unknown) => e);
    expect(messageOf(err)).toBe(piece);
    // Outside any workspace's call (a log line): every browser's pieces.
    expect(maskPieces(piece)).toBe("x [hidden] y");
    forgetBrowser("b1");
    expect(await inW("w1", () => maskPieces(piece))).toBe(piece);
    expect(maskPieces(piece)).toBe(piece);
  });
});
