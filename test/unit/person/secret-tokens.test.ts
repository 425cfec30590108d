// A secret request's page token names its workspace and is random past it; what is not one names none.
import { expect, test } from "bun:test";
import { hash, newToken, same, workspaceOfToken } from "../../../src/person/secret-tokens.ts";

test("a token names its workspace, never twice the same; one of another shape names none", () => {
  const a = newToken("shop-1");
  const b = newToken("shop-1");
  expect(a).not.toBe(b);
  expect(workspaceOfToken(a)).toBe("shop-1");
  expect(a.split(".")[1]!.length).toBe(32);
  for (const bad of ["", "nodot", "a.b.c", ".x", "x."]) expect(workspaceOfToken(bad)).toBeNull();
  expect(same(hash(a), hash(a))).toBe(true);
  expect(same(hash(a), hash(b))).toBe(false);
  expect(same("short", "longer")).toBe(false);
});
