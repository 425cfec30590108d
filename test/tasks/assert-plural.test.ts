import { describe, expect, test } from "bun:test";
import { plural } from "../../src/browser/assert.ts";

describe("assert's seen text", () => {
  test("counts read as English plurals", () => {
    expect(plural(6, "match")).toBe("6 matches");
    expect(plural(2, "box")).toBe("2 boxes");
    expect(plural(1, "match")).toBe("1 match");
    expect(plural(0, "element")).toBe("0 elements");
    expect(plural(3, "element")).toBe("3 elements");
  });
});
