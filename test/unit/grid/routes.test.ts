// A route's URL glob: `*` is any text, every other character itself, on the whole URL without its fragment.
import { describe, expect, test } from "bun:test";
import { routeFor, routesOf } from "../../../src/grid/routes.ts";

const first = (patterns: string[], url: string) =>
  routeFor(routesOf(patterns.map((p) => ({ url: p }))), url)?.url ?? null;

describe("route globs", () => {
  test("* is any text; the rest is matched as written, on the whole URL", () => {
    expect(first(["*/api/*"], "https://a.test/api/v1?x=1")).toBe("*/api/*");
    expect(first(["https://a.test/data.json"], "https://a.test/data.json")).toBe("https://a.test/data.json");
    expect(first(["https://a.test/data.json"], "https://a.test/data_json")).toBeNull();
    expect(first(["https://a.test/data.json"], "https://a.test/data.json?v=2")).toBeNull();
    expect(first(["*.png"], "https://a.test/x.png#top")).toBe("*.png");
    expect(first(["*(a)+[b]?*"], "https://a.test/(a)+[b]?q")).toBe("*(a)+[b]?*");
    expect(first(["*(a)+[b]?*"], "https://a.test/aab")).toBeNull();
  });

  test("the first route that matches wins; none: null", () => {
    expect(first(["*/a/*", "*"], "https://x.test/a/b")).toBe("*/a/*");
    expect(first(["*/a/*", "*"], "https://x.test/c")).toBe("*");
    expect(first(["*/a/*"], "https://x.test/c")).toBeNull();
    expect(routeFor(null, "https://x.test/")).toBeNull();
  });
});
