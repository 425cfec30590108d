// The intercept a browser with a policy or a proxy's sign-in has, over a fake socket: what it answers
// for each blocked request, a proxy's 407, a pop-up sent toward a refused host, and an orphan an
// earlier connection left.
import { describe, expect, test } from "bun:test";
import { EventRing } from "../../../src/grid/event-log.ts";
import { Interceptor, type NetRules, releaseOrphan } from "../../../src/grid/net-rules.ts";
import { NavPolicy } from "../../../src/grid/policy.ts";
import { routesOf } from "../../../src/grid/routes.ts";
import { FakeSocket } from "../../support/fake-socket.ts";

const policy = NavPolicy.of({ block: ["*.evil.test"], private: true });
const rules = (over: Partial<NetRules> = {}): NetRules => ({
  policy,
  auth: null,
  routes: null,
  key: "k",
  ...over,
});
const fake = () => new FakeSocket((m) => (m === "network.addIntercept" ? { intercept: "mine" } : {}));
const blocked = (url: string, over: Record<string, unknown> = {}) => ({
  context: "tab",
  navigation: null,
  redirectCount: 0,
  timestamp: 1,
  isBlocked: true,
  intercepts: ["mine"],
  request: { request: `r-${url}`, url, method: "GET", headers: [] },
  ...over,
});
const answers = (s: FakeSocket) =>
  s.sent.filter((c) => c.method !== "network.addIntercept").map((c) => c.method);

describe("the intercept", () => {
  test("a route answers or fails what it matches, after the policy; the rest go on", async () => {
    const s = fake();
    const ring = new EventRing();
    ring.feed(s.socket);
    const routes = routesOf([
      { url: "*/api/*", status: 418, headers: { "x-routed": "yes" }, body: "teapot" },
      { url: "https://ads.test/*", block: true },
      { url: "http://a.evil.test/*", body: "never" },
    ]);
    const i = new Interceptor(s.socket, ring, rules({ routes }));
    await i.install();
    for (const url of [
      "https://ok.test/api/v1?x=1#frag",
      "https://ads.test/pixel.gif",
      "http://a.evil.test/x",
      "https://ok.test/page",
    ]) {
      s.emit("network.beforeRequestSent", blocked(url));
    }
    await Bun.sleep(0);
    expect(s.sent.filter((c) => c.method !== "network.addIntercept")).toEqual([
      {
        method: "network.provideResponse",
        params: {
          request: "r-https://ok.test/api/v1?x=1#frag",
          statusCode: 418,
          headers: [{ name: "x-routed", value: { type: "string", value: "yes" } }],
          body: { type: "string", value: "teapot" },
        },
      },
      { method: "network.failRequest", params: { request: "r-https://ads.test/pixel.gif" } },
      { method: "network.failRequest", params: { request: "r-http://a.evil.test/x" } },
      { method: "network.continueRequest", params: { request: "r-https://ok.test/page" } },
    ]);
    const entries = ring.since(0).map((l) => l.entry);
    expect(entries[1]).toMatchObject({ refused: true, error: "blocked by the route https://ads.test/*" });
    expect(entries[2]).toMatchObject({ refused: true, error: expect.stringContaining("navigation policy") });
  });

  test("routes alone intercept at beforeRequestSent; no policy, routes or sign-in: nothing is installed", async () => {
    const s = fake();
    await new Interceptor(
      s.socket,
      new EventRing(),
      rules({ policy: null, routes: routesOf([{ url: "*" }]) }),
    ).install();
    expect(s.sent[0]).toEqual({ method: "network.addIntercept", params: { phases: ["beforeRequestSent"] } });
    expect(routesOf([])).toBeNull();
    expect(routesOf(undefined)).toBeNull();
  });

  test("refused requests fail and are logged with their rule; the rest go on; a spare tab's page is left alone", async () => {
    const s = fake();
    const ring = new EventRing();
    ring.feed(s.socket);
    const i = new Interceptor(s.socket, ring, rules());
    await i.install();
    expect(s.sent[0]).toEqual({ method: "network.addIntercept", params: { phases: ["beforeRequestSent"] } });
    for (const url of [
      "http://a.evil.test/x",
      "http://169.254.169.254/",
      "https://ok.test/",
      "http://ok.test/__selenium-flow-spare__",
    ]) {
      s.emit("network.beforeRequestSent", blocked(url));
    }
    await Bun.sleep(0);
    expect(answers(s)).toEqual(["network.failRequest", "network.failRequest", "network.continueRequest"]);
    const entries = ring.since(0).map((l) => l.entry);
    expect(entries[0]).toMatchObject({
      refused: true,
      error:
        "a.evil.test is refused by the navigation policy: the server's navigate.blocked_hosts lists *.evil.test",
    });
    expect(entries[2]).not.toHaveProperty("refused");
    expect(i.refusedIn("tab", 0)?.host).toBe("169.254.169.254");
    expect(i.count).toBe(2);
  });

  test("a proxy's challenge is answered with the credentials once, a second challenge cancelled, a site's 401 left to the browser", async () => {
    const s = fake();
    const i = new Interceptor(
      s.socket,
      new EventRing(),
      rules({ policy: null, auth: { username: "u", password: "p" } }),
    );
    await i.install();
    expect(s.sent[0]).toEqual({ method: "network.addIntercept", params: { phases: ["authRequired"] } });
    const challenge = (status: number, id = "q") => ({
      ...blocked("http://x.test/", {
        request: { request: id, url: "http://x.test/", method: "GET", headers: [] },
      }),
      response: { status },
    });
    // Chromium 156 says -1 for a proxy's challenge (seen through the Grid); 407 as the spec would.
    s.emit("network.authRequired", challenge(-1));
    s.emit("network.authRequired", challenge(407));
    s.emit("network.authRequired", challenge(401, "site"));
    await Bun.sleep(0);
    expect(s.sent.slice(1).map((c) => c.params)).toEqual([
      {
        request: "q",
        action: "provideCredentials",
        credentials: { type: "password", username: "u", password: "p" },
      },
      { request: "q", action: "cancel" },
      { request: "site", action: "default" },
    ]);
  });

  test("a pop-up sent toward a refused host is closed", async () => {
    const s = fake();
    const ring = new EventRing();
    const i = new Interceptor(s.socket, ring, rules());
    await i.install();
    s.emit("browsingContext.contextCreated", {
      context: "pop",
      originalOpener: "tab",
      parent: null,
      url: "about:blank",
    });
    s.emit("browsingContext.navigationStarted", {
      context: "pop",
      url: "http://a.evil.test/",
      navigation: "n",
    });
    s.emit("browsingContext.navigationStarted", {
      context: "tab",
      url: "http://a.evil.test/",
      navigation: "m",
    });
    await Bun.sleep(0);
    expect(answers(s)).toEqual(["browsingContext.close"]);
    expect(ring.since(0).at(-1)?.entry).toMatchObject({
      kind: "console",
      text: expect.stringContaining("a pop-up toward http://a.evil.test/ was closed"),
    });
  });

  test("an orphan intercept an earlier connection left: a connection without rules lets its requests go and removes it", async () => {
    const s = fake();
    releaseOrphan(s.socket, blocked("https://ok.test/", { intercepts: ["old"] }) as never);
    releaseOrphan(s.socket, blocked("https://ok.test/2", { intercepts: ["old"] }) as never);
    await Bun.sleep(0);
    expect(s.sent.map((c) => c.method)).toEqual([
      "network.removeIntercept",
      "network.continueRequest",
      "network.continueRequest",
    ]);
    // One of its own: left to the part that added it.
    const t = fake();
    await t.send("network.addIntercept", {});
    releaseOrphan(t.socket, blocked("https://ok.test/", { intercepts: ["mine"] }) as never);
    expect(t.sent.length).toBe(1);
  });
});
