// The rules every request passes (Host, Origin, path) and the sign-in limiter, on their own.
import { describe, expect, test } from "bun:test";
import { SIGN_IN_TRIES, SignInLimiter } from "../../../src/admin/auth.ts";
import { defaultConfig } from "../../../src/config/schema.ts";
import { HostRules, pathProblem } from "../../../src/http/guard.ts";

function rules(host = "127.0.0.1", allowed: string[] = []): HostRules {
  const c = defaultConfig();
  c.http.host = host;
  c.http.allowed_hosts = allowed;
  return new HostRules(c);
}

describe("Host", () => {
  test("loopback names and the bind address, with or without a port", () => {
    const r = rules("10.1.2.3");
    for (const h of [
      "localhost",
      "LOCALHOST:8766",
      "127.0.0.1",
      "127.0.0.1:1",
      "[::1]",
      "[::1]:8766",
      "10.1.2.3",
      "10.1.2.3:8766",
    ]) {
      expect(r.allows(h), h).toBe(true);
    }
  });

  test("a rebinding page's own name, a lookalike, or garbage is refused", () => {
    const r = rules();
    for (const h of [
      "evil.example.test",
      "evil.example.test:8766",
      "127.0.0.1.evil.example.test",
      "localhost.evil.example.test",
      "10.1.2.3",
      "",
      "a b",
      "user@127.0.0.1",
      "127.0.0.1/x",
    ]) {
      expect(r.allows(h), h).toBe(false);
    }
  });

  test("http.allowed_hosts: a name without a port on any port, one with a port on that port only", () => {
    const r = rules("127.0.0.1", ["proxy.example.test", "flow.example.test:8443"]);
    expect(r.allows("proxy.example.test")).toBe(true);
    expect(r.allows("Proxy.Example.Test:443")).toBe(true);
    expect(r.allows("flow.example.test:8443")).toBe(true);
    expect(r.allows("flow.example.test")).toBe(false);
    expect(r.allows("flow.example.test:9000")).toBe(false);
  });

  test("an IPv6 bind address is matched in brackets", () => {
    expect(rules("::").allows("[::]:8766")).toBe(true);
    expect(rules("fd00::5").allows("[fd00::5]")).toBe(true);
  });
});

describe("Origin", () => {
  const r = rules("127.0.0.1", ["proxy.example.test"]);

  test("the request's own Host with the same port is its own origin", () => {
    expect(r.ownOrigin("http://127.0.0.1:8766", "127.0.0.1:8766")).toBe(true);
    expect(r.ownOrigin("http://localhost", "localhost:80")).toBe(true);
    expect(r.ownOrigin("https://app.example.test", "app.example.test")).toBe(true);
  });

  test("another port of the same host is another origin (SameSite ignores ports; this does not)", () => {
    expect(r.ownOrigin("http://127.0.0.1:9999", "127.0.0.1:8766")).toBe(false);
    expect(r.ownOrigin("http://localhost:8766", "127.0.0.1:8766")).toBe(false);
  });

  test("a declared name is this server's behind a proxy that rewrites Host", () => {
    expect(r.ownOrigin("https://proxy.example.test", "127.0.0.1:8766")).toBe(true);
    expect(r.ownOrigin("https://evil.example.test", "127.0.0.1:8766")).toBe(false);
  });

  test("null, other schemes and garbage are never ours", () => {
    for (const o of ["null", "file://", "chrome-extension://abc", "", "127.0.0.1:8766"]) {
      expect(r.ownOrigin(o, "127.0.0.1:8766"), o).toBe(false);
    }
  });
});

describe("paths", () => {
  test("a path that decodes, with no empty part, is fine; '/' and '/ui/' are the two with a trailing slash", () => {
    for (const p of ["/", "/ui/", "/browser", "/files/a%20b.png", "/flows/%25E0", "/site-data/__proto__"]) {
      expect(pathProblem(p), p).toBeNull();
    }
  });

  test("malformed escapes and empty parts (what Bun leaves of '..') are refused", () => {
    for (const p of ["/flows/%E0%A4%A", "/site-data/%", "/files/%zz", "/admin/workspaces/w/"]) {
      expect(pathProblem(p), p).not.toBeNull();
    }
    expect(pathProblem("/admin//workspaces")).not.toBeNull();
  });
});

describe("the sign-in limiter", () => {
  test(`after ${SIGN_IN_TRIES} wrong tokens in a minute, 429 until the oldest is a minute old`, () => {
    let now = 1_000_000;
    const limiter = new SignInLimiter(() => now);
    for (let i = 0; i < SIGN_IN_TRIES; i++) {
      limiter.check("10.0.0.1");
      limiter.failed("10.0.0.1");
      now += 1000;
    }
    let wait = 0;
    try {
      limiter.check("10.0.0.1");
    } catch (err) {
      wait = (err as { retryAfter: number }).retryAfter;
    }
    // The first failure was 5 s ago: 55 s to go.
    expect(wait).toBe(55);
    limiter.check("10.0.0.2");
    now += 55_000;
    limiter.check("10.0.0.1");
  });
});
