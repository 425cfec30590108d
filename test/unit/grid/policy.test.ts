import { describe, expect, test } from "bun:test";
import { NavPolicy, refusalText } from "../../../src/grid/policy.ts";

const refused = (p: NavPolicy | null, url: string) => {
  const r = p?.refusal(url);
  return r ? refusalText(r) : null;
};

describe("the navigation policy", () => {
  test("no rules: no policy at all (nothing is checked)", () => {
    expect(NavPolicy.of({})).toBeNull();
    expect(NavPolicy.of({ allow: [], block: [], private: false }, {})).toBeNull();
  });

  test("private addresses in every IP form a URL takes, and loopback names", () => {
    const p = NavPolicy.of({ private: true });
    for (const url of [
      "http://127.0.0.1/",
      "http://2130706433/",
      "http://0x7f000001/",
      "http://0177.0.0.1/",
      "http://127.1/",
      "http://[::1]:8080/",
      "http://[::ffff:127.0.0.1]/",
      "http://169.254.169.254/latest/meta-data/",
      "http://[fd00:ec2::254]/",
      "http://10.0.0.8/",
      "http://192.168.1.1/",
      "http://172.20.0.1/",
      "http://0.0.0.0/",
      "http://localhost:3000/",
      "ws://api.localhost/",
      "http://metadata.google.internal/",
    ]) {
      expect(refused(p, url)).toMatch(
        /is refused by the navigation policy: it is a .* address, which the server's navigate.private_addresses setting blocks/,
      );
    }
    for (const url of [
      "https://example.com/",
      "http://8.8.8.8/",
      "http://[2001:4860::8888]/",
      "data:text/html,x",
      "about:blank",
      "blob:https://a.test/x",
    ]) {
      expect(refused(p, url)).toBeNull();
    }
    // Allowed by name: the operator's own exception.
    expect(
      refused(
        NavPolicy.of({ private: true, allow: ["127.0.0.1", "*.example.test"] }),
        "http://127.0.0.1:8080/",
      ),
    ).toBeNull();
  });

  test("blocked and allowed hosts, with *.host globs, said with the rule", () => {
    const p = NavPolicy.of({ block: ["*.evil.test"], allow: ["*.example.test", "evil.test", "x.evil.test"] });
    expect(refused(p, "https://a.b.evil.test/")).toBe(
      "a.b.evil.test is refused by the navigation policy: the server's navigate.blocked_hosts lists *.evil.test",
    );
    expect(refused(p, "https://x.evil.test/")).toContain("blocked_hosts lists *.evil.test");
    expect(refused(p, "https://other.test/")).toBe(
      "other.test is refused by the navigation policy: the server's navigate.allowed_hosts allows only *.example.test, evil.test, x.evil.test",
    );
    expect(refused(p, "https://example.test/")).toBeNull();
    expect(refused(p, "https://deep.app.example.test/")).toBeNull();
    expect(refused(p, "https://notexample.test/")).toContain("allows only");
  });

  test("a workspace narrows the server's policy, never widens it", () => {
    const p = NavPolicy.of(
      { private: true, block: ["bad.test"] },
      { allow: ["127.0.0.1", "bad.test", "ok.test"] },
    );
    expect(refused(p, "http://127.0.0.1/")).toContain("navigate.private_addresses");
    expect(refused(p, "http://bad.test/")).toContain("navigate.blocked_hosts");
    expect(refused(p, "http://elsewhere.test/")).toContain(
      "this workspace's policy allows only 127.0.0.1, bad.test, ok.test",
    );
    expect(refused(p, "http://ok.test/")).toBeNull();
    expect(refused(NavPolicy.of({}, { private: true }), "http://[::1]/")).toContain(
      "this workspace's policy blocks",
    );
  });
});
