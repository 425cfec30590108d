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

  test("a glob of many stars on a long URL answers at once (no backtracking)", () => {
    const glob = `${"*a".repeat(40)}*b`;
    const url = `https://x.test/${"a".repeat(100_000)}`;
    const start = performance.now();
    expect(first([glob], url)).toBeNull();
    expect(first([glob], `${url}b`)).toBe(glob);
    expect(performance.now() - start).toBeLessThan(200);
  });

  test("stars next to each other, at the ends, or alone", () => {
    expect(first(["**"], "https://x.test/")).toBe("**");
    expect(first(["https://x.test/**"], "https://x.test/")).toBe("https://x.test/**");
    expect(first(["*x.test/a*a"], "https://x.test/a")).toBeNull();
    expect(first(["*x.test/a*a"], "https://x.test/aa")).toBe("*x.test/a*a");
  });

  test("the first route that matches wins; none: null", () => {
    expect(first(["*/a/*", "*"], "https://x.test/a/b")).toBe("*/a/*");
    expect(first(["*/a/*", "*"], "https://x.test/c")).toBe("*");
    expect(first(["*/a/*"], "https://x.test/c")).toBeNull();
    expect(routeFor(null, "https://x.test/")).toBeNull();
  });
});
