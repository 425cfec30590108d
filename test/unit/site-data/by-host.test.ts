// The snapshot by host: the listing, one site in full, History, Forget and the summary, all from one
// grouping of the jar.
import { describe, expect, spyOn, test } from "bun:test";
import {
  forget,
  historyHosts,
  historyRows,
  Jar,
  listingAndDetails,
  REDACTED_DOTS,
  rules,
  type SecretRow,
  siteDetail,
  siteListing,
  summary,
} from "../../../src/site-data/by-host.ts";
import { fromJson, type SiteData, type Visit } from "../../../src/store/record.ts";
import { cookie } from "../../support/cookies.ts";

const NOW = 1_790_800_000;
const APP = "https://app.example.com";
const SSO = "https://sso.example.com";

const visit = (url: string, when = NOW): Visit => ({ origin: new URL(url).origin, url, at: when });
const hostsOf = (d: SiteData, h: Visit[] = []) => siteListing(d, h).sites.map((s) => s.site);

const DATA: SiteData = {
  cookies: [
    cookie("sid", "app.example.com", { http_only: true, value: "RAW-SECRET" }),
    cookie("ab", ".example.com", { value: "s" }),
    cookie("kc", "sso.example.com"),
  ],
  origins: { [APP]: { local: { theme: "dark", tour: "seen" } } },
  session: { origin: APP, items: { token: "t" } },
  saved_at: NOW,
};

describe("the listing and one site", () => {
  test("one row per host with counts; one site in full, httpOnly masked", () => {
    const listing = siteListing(DATA);
    expect(listing.saved_at).toBe(NOW);
    expect(listing.uri).toBe("workspace://site-data");
    const app = listing.sites.find((s) => s.site === "app.example.com");
    expect(app).toEqual({
      site: "app.example.com",
      uri: "workspace://site-data/app.example.com",
      cookies: 2,
      storage: [{ origin: APP, local_storage: 2, session_storage: 1 }],
    });
    expect(listing.sites.find((s) => s.site === "sso.example.com")?.storage).toEqual([]);
    const detail = siteDetail(DATA, "App.Example.com");
    expect(detail?.cookies.map((c) => [c.name, c.value, c.shared])).toEqual([
      ["sid", REDACTED_DOTS, false],
      ["ab", "s", true],
    ]);
    expect(detail?.storage).toEqual([
      { origin: APP, local_storage: { theme: "dark", tour: "seen" }, session_storage: { token: "t" } },
    ]);
    expect(JSON.stringify(listingAndDetails(DATA))).not.toContain("RAW-SECRET");
    expect(siteDetail(DATA, "nowhere.example.com")).toBeNull();
  });

  test("the cookie detail has exactly the published fields, and no value_type", () => {
    const c = siteDetail(DATA, "sso.example.com")?.cookies[0];
    expect(Object.keys(c ?? {}).sort()).toEqual(
      ["domain", "expiry", "http_only", "name", "path", "same_site", "secure", "shared", "value"].sort(),
    );
  });

  test("hosts in the history come first, most recent first, then the rest alphabetically", () => {
    const data: SiteData = {
      cookies: [
        cookie("c", "cdn.example.net"),
        cookie("a", "ads.example.net"),
        cookie("s", "app.example.com"),
        cookie("g", "grafana.example.com"),
      ],
    };
    const history = [
      visit("https://grafana.example.com/d"),
      visit("https://app.example.com/x"),
      visit("https://never-saved.example.com/"),
    ];
    expect(hostsOf(data, history)).toEqual([
      "grafana.example.com",
      "app.example.com",
      "ads.example.net",
      "cdn.example.net",
    ]);
    expect(hostsOf(data)).toEqual([
      "ads.example.net",
      "app.example.com",
      "cdn.example.net",
      "grafana.example.com",
    ]);
  });

  test("history hosts are unique and newest first", () => {
    expect(
      historyHosts([visit("https://a.test/1"), visit("http://a.test:8080/"), visit("https://b.test/")]),
    ).toEqual(["a.test", "b.test"]);
    expect(historyHosts([])).toEqual([]);
  });

  test("empty sessionStorage is no row; alone it makes one", () => {
    expect(siteListing({ session: { origin: APP, items: {} } }).sites).toEqual([]);
    expect(summary({ session: { origin: APP, items: {} } })).toBeNull();
    const alone = siteListing({ session: { origin: APP, items: { t: "1" } } });
    expect(alone.sites).toEqual([
      {
        site: "app.example.com",
        uri: "workspace://site-data/app.example.com",
        cookies: 0,
        storage: [{ origin: APP, local_storage: 0, session_storage: 1 }],
      },
    ]);
    expect(summary({ session: { origin: APP, items: { t: "1" } } })).toEqual({
      sites: 1,
      uri: "workspace://site-data",
    });
  });

  test("one host on two ports keeps each origin's storage apart", () => {
    const data: SiteData = {
      origins: {
        "http://localhost:3000": { local: { k: "a" } },
        "http://localhost:8080": { local: { k: "b" } },
      },
      session: { origin: "http://localhost:8080", items: { s: "1" } },
    };
    expect(siteListing(data).sites[0]?.storage).toEqual([
      { origin: "http://localhost:3000", local_storage: 1, session_storage: 0 },
      { origin: "http://localhost:8080", local_storage: 1, session_storage: 1 },
    ]);
    expect(siteDetail(data, "localhost")?.storage).toEqual([
      { origin: "http://localhost:3000", local_storage: { k: "a" }, session_storage: {} },
      { origin: "http://localhost:8080", local_storage: { k: "b" }, session_storage: { s: "1" } },
    ]);
  });

  test("a parent cookie with no host of its own gets its own row", () => {
    expect(hostsOf({ cookies: [cookie("x", ".example.com")] })).toEqual(["example.com"]);
  });

  test("rows do not depend on the order the cookies came in", () => {
    const a = cookie("p", ".example.com");
    const b = cookie("s", "app.example.com");
    expect(hostsOf({ cookies: [a, b] })).toEqual(["app.example.com", "example.com"]);
    expect(hostsOf({ cookies: [b, a] })).toEqual(["app.example.com", "example.com"]);
    // With storage at app, the parent cookie sits under it and makes no row of its own.
    expect(hostsOf({ cookies: [a], origins: { [APP]: { local: { k: "1" } } } })).toEqual(["app.example.com"]);
  });

  test("a site's own dotted cookie is not shared; a parent's is", () => {
    const data: SiteData = {
      cookies: [
        cookie("own", ".app.example.com"),
        cookie("ab", ".example.com"),
        cookie("h", "app.example.com"),
      ],
      origins: { [APP]: { local: { k: "1" } } },
    };
    expect(siteDetail(data, "app.example.com")?.cookies.map((c) => [c.name, c.shared])).toEqual([
      ["own", false],
      ["ab", true],
      ["h", false],
    ]);
    expect(siteDetail({ cookies: [cookie("x", ".example.org")] }, "example.org")?.cookies[0]?.shared).toBe(
      false,
    );
  });

  test("the site detail names what Forget takes and what it keeps", () => {
    const data: SiteData = {
      cookies: [
        cookie("own", "app.example.com"),
        cookie("dot", ".app.example.com"),
        cookie("ab", ".example.com"),
      ],
      origins: { [APP]: { local: { k: "1" } } },
    };
    const app = siteDetail(data, "app.example.com");
    expect(app?.own_cookies).toEqual(["own", "dot"]);
    expect(app?.kept_shared).toEqual([{ name: "ab", domain: ".example.com", path: "/" }]);
    const parent = siteDetail({ cookies: [cookie("ab", ".example.com")] }, "example.com");
    expect(parent?.own_cookies).toEqual(["ab"]);
    expect(parent?.kept_shared).toEqual([]);
  });

  test("two shared cookies of one name stay apart, each under the rows it reaches", () => {
    const data: SiteData = {
      cookies: [
        cookie("sid", ".example.com"),
        cookie("sid", ".example.org", { path: "/app" }),
        cookie("sid", "app.example.com"),
      ],
      origins: { [APP]: { local: { k: "1" } }, "https://mail.example.org": { local: { k: "1" } } },
    };
    expect(siteDetail(data, "app.example.com")?.kept_shared).toEqual([
      { name: "sid", domain: ".example.com", path: "/" },
    ]);
    expect(siteDetail(data, "mail.example.org")?.kept_shared).toEqual([
      { name: "sid", domain: ".example.org", path: "/app" },
    ]);
  });

  test("summary is null when nothing is saved, else the number of rows", () => {
    expect(summary({})).toBeNull();
    expect(summary(null)).toBeNull();
    expect(summary({ cookies: [cookie("a", "a.example.com")] })).toEqual({
      sites: 1,
      uri: "workspace://site-data",
    });
  });

  test("a malformed snapshot, as the store reads it: no crash, nothing shown that is not a cookie", () => {
    const odd = {
      cookies: [null, 3, { name: 1 }, cookie("ok", "ok.example.com")],
      origins: [1],
      session: "x",
    };
    expect(hostsOf(fromJson({ site_data: odd }).site_data)).toEqual(["ok.example.com"]);
  });

  test("a jar of many domains is not rescanned per host", () => {
    const covers = spyOn(rules, "covers");
    const own = spyOn(rules, "own");
    const covering = spyOn(Jar.prototype, "covering");
    try {
      const cookies = Array.from({ length: 500 }, (_, i) => cookie(`c${i}`, `.d${i}.example.net`));
      const data: SiteData = { cookies };
      const { listing, details } = listingAndDetails(data);
      expect(listing.sites).toHaveLength(500);
      expect(Object.keys(details).sort()).toEqual(listing.sites.map((s) => s.site).sort());
      expect(covers.mock.calls.length + own.mock.calls.length).toBeLessThanOrEqual(4 * 500);
      expect(covering.mock.calls.length).toBeLessThanOrEqual(500 + 5);
      expect(siteListing(data)).toEqual(listing);
    } finally {
      covers.mockRestore();
      own.mockRestore();
      covering.mockRestore();
    }
  });
});

describe("forget", () => {
  test("takes the host's storage and own cookies, keeps the rest and saved_at", () => {
    const data: SiteData = {
      ...DATA,
      cookies: [...(DATA.cookies ?? []), cookie("dot", ".app.example.com")],
      origins: { ...DATA.origins, [SSO]: { local: { s: "1" } } },
    };
    const { left, removed } = forget(data, "APP.example.com");
    expect(left.cookies?.map((c) => c.name)).toEqual(["ab", "kc"]);
    expect(Object.keys(left.origins ?? {})).toEqual([SSO]);
    expect(left.session).toEqual({});
    expect(left.saved_at).toBe(NOW);
    expect(removed).toEqual({
      site: "app.example.com",
      cookies: ["sid", "dot"],
      origins: [APP],
      kept_shared: [{ name: "ab", domain: ".example.com", path: "/" }],
    });
  });

  test("forgetting the sessionStorage host alone names its origin", () => {
    const { left, removed } = forget(
      { session: { origin: "https://app.test", items: { t: "1" } } },
      "app.test",
    );
    expect(left.session).toEqual({});
    expect(removed?.origins).toEqual(["https://app.test"]);
  });

  test("sessionStorage on another host stays", () => {
    const data: SiteData = {
      cookies: [cookie("a", "app.test")],
      session: { origin: "https://sso.test", items: { t: "1" } },
    };
    expect(forget(data, "app.test").left.session).toEqual({ origin: "https://sso.test", items: { t: "1" } });
  });

  test("a parent-only row can be forgotten: its dotted cookie goes", () => {
    const { left, removed } = forget({ cookies: [cookie("shared", ".example.org")] }, "example.org");
    expect(removed?.cookies).toEqual(["shared"]);
    expect(removed?.kept_shared).toEqual([]);
    expect(siteListing(left).sites).toEqual([]);
  });

  test("a host with nothing of its own removes nothing", () => {
    const data: SiteData = { cookies: [cookie("shared", ".example.org")] };
    const { left, removed } = forget(data, "mail.example.org");
    expect(removed).toBeNull();
    expect(left).toEqual(data);
  });
});

describe("history rows", () => {
  const secrets = (host: string): SecretRow[] =>
    host === "app.example.com" ? [{ name: "app", description: "the app", keys: ["user", "pass"] }] : [];

  test("one row per host, current first, with its latest page, what is saved there and its secrets", () => {
    const history = [
      visit("https://app.example.com/x", NOW - 60),
      visit("http://app.example.com:8080/dev", NOW - 120),
      visit("https://example.com/", NOW - 3600),
    ];
    const data: SiteData = {
      cookies: [cookie("sid", "app.example.com"), cookie("ab", ".example.com")],
      origins: { [APP]: { local: { a: "1", b: "2" } } },
    };
    expect(historyRows(history, data, secrets)).toEqual({
      sites: [
        {
          site: "app.example.com",
          url: "https://app.example.com/x",
          at: NOW - 60,
          saved: { cookies: 2, local: 2, session: 0 },
          secrets: [{ name: "app", description: "the app", keys: ["user", "pass"] }],
        },
        { site: "example.com", url: "https://example.com/", at: NOW - 3600, saved: null, secrets: [] },
      ],
      clears: ["http://app.example.com:8080", "https://example.com"],
    });
  });

  test("a secret never makes a row, and nothing visited is no rows", () => {
    expect(historyRows([], DATA, () => [{ name: "x", description: "", keys: [] }])).toEqual({
      sites: [],
      clears: [],
    });
  });
});
