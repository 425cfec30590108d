import { describe, expect, test } from "bun:test";
import { OUTLINE } from "../../src/actions/read.ts";
import { PNG } from "../../src/actions/screenshot.ts";
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
