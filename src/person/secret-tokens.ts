// A secret request's page token: it names its workspace (so any server finds the record) and 24
// random bytes; the record keeps its hash to look it up by, compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const hash = (text: string) => createHash("sha256").update(text).digest("hex");

/** The same text, compared in constant time. */
export function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The token names its workspace (so any server finds the record) and 24 random bytes. */
export function newToken(workspace: string): string {
  return `${Buffer.from(workspace).toString("base64url")}.${randomBytes(24).toString("base64url")}`;
}

export function workspaceOfToken(token: string): string | null {
  const [w, rest] = token.split(".");
  if (!w || !rest || token.split(".").length !== 2) return null;
  return Buffer.from(w, "base64url").toString("utf8") || null;
}
