// Flows on the real Grid: saving and reading them, a sign-in with a parameter and a secret that
// saves site data mid-run, onError: continue, a timeout, a reap during a run, bad flows refused
// with their step and line, each page written as its step ends, and progress over MCP.
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: flows spell their placeholders ${name}
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { browserState } from "../../src/browser/landing.ts";
import { badInput } from "../../src/errors.ts";
import { openStore } from "../../src/store/index.ts";
import type { RecordStore, UpdateFn, UpdateOptions } from "../../src/store/types.ts";
import { goAnd, testAction } from "../support/actions.ts";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { mcpClient } from "../support/mcp.ts";
import { endAll, logLines, startServer, type TestServer, TOKEN } from "../support/server.ts";
import { addStepTools } from "../support/step-tools.ts";

const W = "flows";
// A new browser may wait in the shared Grid's queue.
const SLOW = 120_000;
const FRESH = "flows-fresh";
const SAVES = "flows-saves";
const PASSWORD = "pw-Sesame-4417";
// What the jar page sets: never in a reply, a run report or a log line.
const JAR = {
  sid: "jar-sid-5e1c07d4",
  pref: "jar-pref-a93d2f61",
  local: "jar-local-7b40e8c9",
  session: "jar-session-c2f61d30",
};
const bodies: string[] = [];

let port = 0;
const at = (path: string, host = "app.example.test") => `http://${host}:${port}${path}`;
const site = serveFixture({
  "/login": () =>
    html(
      "<title>Sign in</title><form method=post action=/session><label>Email <input name=email></label><label>Password <input type=password name=password></label><button>Sign in</button></form>",
    ),
  "/session": async (req) => {
    const form = await req.formData();
    if (form.get("password") !== PASSWORD || form.get("email") !== "ada@example.test") {
      return new Response(null, { status: 303, headers: { location: "/login?failed=1" } });
    }
    return new Response(null, {
      status: 303,
      headers: { location: at("/sso", "sso.example.test"), "set-cookie": "sid=s-1; Path=/; HttpOnly" },
    });
  },
  "/sso": () =>
    html(
      `<title>SSO</title><script>localStorage.setItem("sso_token", "t-1")</script><a href="${at("/home")}">Continue</a>`,
    ),
  "/home": () =>
    html(
      `<title>Home</title><script>localStorage.setItem("app_pref", "dark")</script><a href="/login">Sign out</a>`,
    ),
  "/after": () => html("<title>After</title><h1>After</h1>"),
  "/other": () => html("<title>Other</title><h1>Other</h1>"),
  "/find": () =>
    html(
      "<title>Find</title><form method=get action=/results><label>Search <input name=q></label><button>Find</button></form>",
    ),
  "/results": () => html("<title>Results</title><h1>Results</h1>"),
  "/slow": async () => {
    await Bun.sleep(4000);
    return html("<title>Slow</title>");
  },
  // Sites a flow saves mid-run, each on a host of its own.
  "/one": () => html(`<title>One</title><script>localStorage.setItem("a", "1")</script>`),
  "/two": () =>
    html(
      `<title>Two</title><script>localStorage.setItem("page", "b"); sessionStorage.setItem("tab", "b")</script>`,
    ),
  "/three": () => html("<title>Three</title><h1>Three</h1>"),
  "/jar": () => {
    const headers = new Headers({ "content-type": "text/html; charset=utf-8" });
    headers.append("set-cookie", `jar_sid=${JAR.sid}; Path=/; HttpOnly`);
    headers.append("set-cookie", `jar_pref=${JAR.pref}; Path=/`);
    const script = `localStorage.setItem("jar_local", "${JAR.local}"); sessionStorage.setItem("jar_session", "${JAR.session}")`;
    return new Response(
      `<!doctype html><html><head><meta charset="utf-8"><title>Jar</title><script>${script}</script>`,
      {
        headers,
      },
    );
  },
});
port = site.port;

/** Counts the store's updates per key: "one history write per run" is read off it. */
class CountingStore implements RecordStore {
  updates = new Map<string, number>();
  constructor(private readonly inner: RecordStore) {}
  get kind() {
    return this.inner.kind;
  }
  get ttl() {
    return this.inner.ttl;
  }
  get = (k: string) => this.inner.get(k);
  set = (k: string, r: Parameters<RecordStore["set"]>[1]) => this.inner.set(k, r);
  update = (k: string, fn: UpdateFn, opts?: UpdateOptions) => {
    this.updates.set(k, (this.updates.get(k) ?? 0) + 1);
    return this.inner.update(k, fn, opts);
  };
  delete = (k: string) => this.inner.delete(k);
  keys = () => this.inner.keys();
  takeLease = (n: string, ticket: string, ms: number) => this.inner.takeLease(n, ticket, ms);
  takeLeaseReading = (n: string, ticket: string, ms: number) => this.inner.takeLeaseReading(n, ticket, ms);
  renewLease = (n: string, token: number, ms: number) => this.inner.renewLease(n, token, ms);
  releaseLease = (n: string, token: number) => this.inner.releaseLease(n, token);
  breakLease = (n: string) => this.inner.breakLease(n);
  leaveLeaseQueue = (n: string, ticket: string) => this.inner.leaveLeaseQueue(n, ticket);
  openMcpSession = (id: string, w: string, s: number, max: number) =>
    this.inner.openMcpSession(id, w, s, max);
  mcpSession = (id: string, s: number) => this.inner.mcpSession(id, s);
  closeMcpSession = (id: string) => this.inner.closeMcpSession(id);
  putMark = (n: string, s: number) => this.inner.putMark(n, s);
  hasMark = (n: string) => this.inner.hasMark(n);
  putSignIn = (id: string, seconds: number) => this.inner.putSignIn(id, seconds);
  hasSignIn = (id: string) => this.inner.hasSignIn(id);
  dropSignIn = (id: string) => this.inner.dropSignIn(id);
  ping = () => this.inner.ping();
  close = () => this.inner.close();
  count(k: string) {
    return this.updates.get(k) ?? 0;
  }
}

// Test-only step tools: one that moves the page and then fails, one that reaps the browser.
const goThenFail = goAnd("test_go_then_fail", async () => {
  throw badInput("the test tool failed on purpose");
});
const reap = testAction("test_reap", async (ctx) => {
  const here = await browserState(ctx.browser);
  reaped.push(ctx.browser.id);
  const res = await fetch(`${testGridUrl}/session/${ctx.browser.id}`, { method: "DELETE" });
  if (res.status !== 200) throw new Error(`the Grid did not delete the browser: ${res.status}`);
  return here;
});
const submit = testAction("test_submit", async (ctx) => {
  const page = await ctx.browser.page();
  await page.userCall(page.context, "() => document.forms[0].submit()", []);
  const until = Date.now() + 10_000;
  while (!(await page.url()).includes("/results") && Date.now() < until) await Bun.sleep(50);
  return page.state();
});
const reaped: string[] = [];

let server: TestServer;
let store: CountingStore;
let globalDir: string;

async function call(method: string, path: string, body?: unknown, workspace: string | null = W) {
  const res = await server.call(method, path, body, workspace);
  bodies.push(JSON.stringify(res.body));
  return res;
}

async function putYaml(name: string, yaml: string, workspace = W) {
  const res = await fetch(`${server.url}/flows/${name}`, {
    method: "PUT",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "x-workspace": workspace,
      "content-type": "application/yaml",
    },
    body: yaml,
  });
  const body = (await res.json()) as any;
  bodies.push(JSON.stringify(body));
  return { status: res.status, body };
}

beforeAll(async () => {
  globalDir = mkdtempSync(join(tmpdir(), "sf-global-flows-"));
  writeFileSync(
    join(globalDir, "shared.yaml"),
    `description: A global flow\nsteps:\n  - tool: navigate\n    args: {url: "${at("/other")}"}\n`,
  );
  writeFileSync(
    join(globalDir, "clash.yml"),
    "description: the global clash\nsteps:\n  - tool: end_browser\n",
  );
  store = new CountingStore(await openStore({ ttl: 86400 }));
  server = await startServer({
    store,
    configure: (c) => {
      c.flows.dir = globalDir;
      c.secrets.hold_ms = 300;
      c.secrets.entries = {
        "app-login": {
          description: "The fixture app's account",
          allowed_urls: [`http://app.example.test:${port}`], // with a scheme, the port counts too
          keys: { password: { value: PASSWORD } },
        },
      };
    },
  });
  addStepTools(server.app.services.flows.tools, [goThenFail, reap, submit]);
});

afterAll(async () => {
  await endAll(server, [W, FRESH, SAVES]);
  await server.close();
  site.stop();
  rmSync(globalDir, { recursive: true, force: true });
  // No secret value and no Grid id reached a reply or a log line.
  const everything = [...bodies, ...logLines].join("\n");
  expect(everything).not.toContain(PASSWORD);
  expect(everything).not.toContain(encodeURIComponent(PASSWORD));
  for (const id of reaped) expect(everything).not.toContain(id);
  for (const value of Object.values(JAR)) expect(everything).not.toContain(value);
});

const SIGN_IN = `description: Sign in across the app and its SSO, save, and go on
params:
  user: null
  base: ${at("")}
steps:
  - tool: navigate
    args: {url: "\${base}/login"}
  - tool: write
    args:
      fields:
        - {selector: {label: Email}, text: "\${user}"}
        - {selector: {label: Password}, secret: {name: app-login, key: password}}
      submit: true
  - tool: assert
    args: {selector: {text: Continue}}
  - tool: interact
    args: {action: click, selector: {text: Continue}}
  - tool: assert
    args: {selector: {text: Sign out}}
  - tool: save_site_data
    return: true
  - tool: navigate
    args: {url: "\${base}/after"}
timeout: 60
`;

describe("saving and reading flows", () => {
  test(
    "PUT with a YAML body saves; GET /flows and workspace://flows list it beside the global ones",
    async () => {
      const saved = await putYaml("sign-in", SIGN_IN);
      expect(saved.status).toBe(200);
      expect(saved.body).toEqual({
        name: "sign-in",
        replaced: false,
        steps: 7,
        params: ["user", "base"],
        uri: "workspace://flows/sign-in",
      });
      const again = await putYaml("sign-in", SIGN_IN);
      expect(again.body.replaced).toBe(true);

      // A JSON body is the flow's fields; the workspace's own flow wins a name clash.
      const json = await call("PUT", "/flows/clash", {
        description: "the workspace's clash",
        steps: [{ tool: "navigate", args: { url: at("/after") } }],
      });
      expect(json.status).toBe(200);

      const list = await call("GET", "/flows");
      expect(list.status).toBe(200);
      expect(list.body.saving).toBe(true);
      const byName = Object.fromEntries(list.body.flows.map((f: any) => [f.name, f]));
      expect(Object.keys(byName)).toEqual(["clash", "shared", "sign-in"]);
      expect(byName.clash).toMatchObject({ source: "workspace", description: "the workspace's clash" });
      expect(byName.shared).toMatchObject({ source: "global", steps: 1, tools: ["navigate"] });
      expect(byName["sign-in"].params).toEqual({ user: {}, base: { default: at("") } });

      const one = await call("GET", "/flows/sign-in");
      expect(one.body.yaml).toBe(SIGN_IN);
      expect(one.body.steps[1]).toEqual({
        tool: "write",
        args: {
          fields: [
            { selector: { label: "Email" }, text: "${user}" },
            { selector: { label: "Password" }, secret: { name: "app-login", key: "password" } },
          ],
          submit: true,
        },
        return: false,
      });
      expect((await call("GET", "/flows/nope")).status).toBe(404);

      const mcp = await mcpClient(server, W);
      const listed = await mcp.resource("workspace://flows");
      expect(listed.flows.map((f: any) => f.name)).toEqual(["clash", "shared", "sign-in"]);
      expect((await mcp.resource("workspace://flows/shared")).source).toBe("global");
      const viaTool = await mcp.tool("save_flow", {
        name: "mcp-made",
        yaml: `steps:\n  - tool: navigate\n    args: {url: "${at("/other")}"}\n`,
      });
      expect(viaTool.structuredContent).toMatchObject({ name: "mcp-made", steps: 1 });
    },
    SLOW,
  );

  test(
    "delete_flow deletes the workspace's own; a global one cannot be deleted here",
    async () => {
      const del = await call("DELETE", "/flows/clash");
      expect(del.body).toEqual({ name: "clash", deleted: true, global: true });
      const list = await call("GET", "/flows");
      expect(list.body.flows.find((f: any) => f.name === "clash").source).toBe("global");
      const global = await call("DELETE", "/flows/clash");
      expect(global.status).toBe(400);
      expect(global.body.error).toContain("global flow");
      expect((await call("DELETE", "/flows/never-was")).status).toBe(404);
      expect((await call("DELETE", "/flows/mcp-made")).status).toBe(200);
    },
    SLOW,
  );

  test(
    "names that could leave their folder are refused",
    async () => {
      for (const bad of [".hidden", "a..b", "a.yaml", "x".repeat(65)]) {
        const res = await call("PUT", `/flows/${encodeURIComponent(bad)}`, {
          steps: [{ tool: "end_browser" }],
        });
        expect(res.status).toBe(400);
        expect(res.body.error).toContain("flow name");
      }
    },
    SLOW,
  );

  test(
    "every kind of bad flow is refused with its step and line, and nothing is kept",
    async () => {
      const cases: Array<[string, string]> = [
        ["steps:\n  - tool: navigate\n    args: {url: [\n", "invalid YAML at line "],
        [
          "steps:\n  - tool: navigate\n    args: {url: 'https://a.example.test/'}\n  - tool: clik\n",
          'step 2 (clik) at line 4: unknown tool "clik"',
        ],
        [
          "steps:\n  - tool: navigate\n    args:\n      url: 'https://a.example.test/'\n      colour: red\n",
          'step 1 (navigate) at line 5: unknown field "colour"',
        ],
        [
          "steps:\n  - tool: write\n    args:\n      text: hi\n",
          'step 1 (write) at line 3: field "selector" is invalid: is required (or give fields)',
        ],
        [
          "steps:\n  - tool: navigate\n    args: {url: '${where}'}\n",
          "step 1 (navigate) at line 3: ${where} is not a parameter of this flow",
        ],
        [
          "steps:\n  - tool: run_flow\n    args: {name: x}\n",
          "step 1 (run_flow) at line 2: run_flow cannot be a step",
        ],
      ];
      for (const [yaml, error] of cases) {
        const res = await putYaml("bad", yaml);
        expect(res.status).toBe(400);
        expect(res.body.error).toStartWith(error);
      }
      expect((await call("GET", "/flows/bad")).status).toBe(404);
      const both = await call("PUT", "/flows/bad", { yaml: "steps: []", steps: [] });
      expect(both.status).toBe(400);
      const huge = await putYaml("huge", `description: ${"x".repeat(1024 * 1024)}\nsteps: []\n`);
      expect(huge.status).toBe(413);
    },
    SLOW,
  );

  test(
    "an unknown flow or a missing parameter is refused before a browser opens",
    async () => {
      const unknown = await call("POST", "/flows/nope/run", {}, FRESH);
      expect(unknown.status).toBe(404);
      await putYaml("needs-user", SIGN_IN, FRESH);
      const missing = await call("POST", "/flows/needs-user/run", {}, FRESH);
      expect(missing.status).toBe(400);
      expect(missing.body.error).toBe('parameter "user" has no default: pass it in params');
      const extra = await call("POST", "/flows/needs-user/run", { params: { user: "a", who: "b" } }, FRESH);
      expect(extra.body.error).toBe('unknown parameter "who": this flow takes user, base');
      expect(await server.app.services.store.get(FRESH)).toBeNull();
      expect((await call("GET", "/browser", undefined, FRESH)).body.live).toBe(false);
    },
    SLOW,
  );
});

describe("running flows", () => {
  test(
    "a sign-in with a parameter and a secret saves every site it passed through, mid-run",
    async () => {
      await call("POST", "/browser/navigate", { url: at("/other") });
      const before = store.count(W);
      const run = await call("POST", "/flows/sign-in/run", { params: { user: "ada@example.test" } });
      expect(run.status).toBe(200);
      const report = run.body;
      expect(report.status).toBe("ok");
      expect(report.steps.map((s: any) => [s.n, s.tool, s.ok, s.url])).toEqual([
        [1, "navigate", true, at("/login")],
        [2, "write", true, at("/sso", "sso.example.test")],
        [3, "assert", true, undefined],
        [4, "interact", true, at("/home")],
        [5, "assert", true, undefined],
        [6, "save_site_data", true, undefined],
        [7, "navigate", true, at("/after")],
      ]);
      for (const s of report.steps) expect(typeof s.ms).toBe("number");
      // The save read the storage of both sites: the pages reached were written before it ran.
      const saved = report.steps[5].result.saved;
      expect(saved.sites).toContain(at("", "sso.example.test").replace(/\/$/, ""));
      expect(saved.sites).toContain(at("").replace(/\/$/, ""));
      expect(saved.cookies).toBeGreaterThanOrEqual(1);
      expect(report.steps[0].result).toBeUndefined();
      expect(report).toMatchObject({ url: at("/after"), title: "After" });
      expect(report.site_data).toBeUndefined();
      for (const s of report.steps) expect(s.site_data).toBeUndefined();

      const record = await server.app.services.store.get(W);
      const origins = record!.site_data.origins!;
      expect(origins[at("", "sso.example.test").replace(/\/$/, "")]!.local).toEqual({ sso_token: "t-1" });
      expect(origins[at("").replace(/\/$/, "")]!.local).toEqual({ app_pref: "dark" });
      expect(record!.history.map((v) => v.url)).toEqual([at("/after"), at("/sso", "sso.example.test")]);
      // One write as each step that reached a page (1, 3, 5, 8) or saved (7) ended, then the run's own.
      expect(store.count(W) - before).toBe(6);
      // A save on its own, on a server with secrets, reports its receipt too (filled in by the settle write).
      const single = await call("POST", "/browser/save-site-data", {});
      // Only the page's origin is read again (nothing else loaded since the run's save); sso is carried.
      expect(single.body.saved.sites).toEqual([at("", "app.example.test").replace(/\/$/, "")]);
      expect(JSON.stringify(report)).not.toContain(PASSWORD);
    },
    SLOW,
  );

  test(
    "a run without a save writes each page as its step ends, in order, then the run's own write",
    async () => {
      await putYaml(
        "tour",
        `steps:\n  - tool: navigate\n    args: {url: "${at("/other")}"}\n  - tool: navigate\n    args: {url: "${at("/sso", "sso.example.test")}"}\n  - tool: navigate\n    args: {url: "${at("/after")}"}\n`,
      );
      const before = store.count(W);
      const run = await call("POST", "/flows/tour/run", {});
      expect(run.body.status).toBe("ok");
      expect(store.count(W) - before).toBe(4);
      const record = await server.app.services.store.get(W);
      expect(record!.history.map((v) => v.url).slice(0, 2)).toEqual([
        at("/after"),
        at("/sso", "sso.example.test"),
      ]);
    },
    SLOW,
  );

  test(
    "onError: continue goes past a failed step, whose safe page is recorded",
    async () => {
      const yaml = (onError: string) =>
        `steps:\n  - tool: navigate\n    args: {url: "${at("/after")}"}\n  - tool: test_go_then_fail\n    args: {url: "${at("/find", "sso.example.test")}"}\n  - tool: navigate\n    args: {url: "${at("/other")}"}\nonError: ${onError}\n`;
      await putYaml("bumpy", yaml("continue"));
      const before = store.count(W);
      const run = await call("POST", "/flows/bumpy/run", {});
      const report = run.body;
      expect(report.status).toBe("failed");
      expect(report.steps.map((s: any) => [s.tool, s.ok])).toEqual([
        ["navigate", true],
        ["test_go_then_fail", false],
        ["navigate", true],
      ]);
      expect(report.steps[1].error).toBe("the test tool failed on purpose");
      expect(report.steps[1].url).toBe(at("/find", "sso.example.test"));
      expect(report.url).toBe(at("/other"));
      // The first step stayed on the page it started on; the failed one and the last each moved it.
      expect(store.count(W) - before).toBe(3);
      const record = await server.app.services.store.get(W);
      expect(record!.history.slice(0, 2).map((v) => v.url)).toEqual([
        at("/other"),
        at("/find", "sso.example.test"),
      ]);

      await putYaml("bumpy", yaml("stop"));
      const stopped = await call("POST", "/flows/bumpy/run", {});
      expect(stopped.body.status).toBe("failed");
      expect(stopped.body.steps).toHaveLength(2);
      expect(stopped.body.url).toBe(at("/find", "sso.example.test"));
    },
    SLOW,
  );

  test(
    "a typed secret in a landing URL is withheld: not shown, not recorded, the run's url redacted",
    async () => {
      // The write sends the form by clicking its button: the GET lands with the value in its URL.
      await putYaml(
        "leaky",
        `steps:\n  - tool: navigate\n    args: {url: "${at("/find")}"}\n  - tool: write\n    args: {selector: {label: Search}, secret: {name: app-login, key: password}, submit: {text: Find}}\n    return: true\n  - tool: assert\n    args: {selector: {css: h1}}\n`,
      );
      const run = await call("POST", "/flows/leaky/run", {});
      const report = run.body;
      expect(report.status).toBe("ok");
      expect(report.steps[0].url).toBe(at("/find"));
      for (const s of report.steps.slice(1)) expect(s.url).toBeUndefined();
      expect(report.url_redacted).toBe(true);
      expect(report.url).toBe(at("/results?q=[hidden]"));
      expect(report.title).toBe("Results");
      expect(JSON.stringify(report)).not.toContain(PASSWORD);
      const record = await server.app.services.store.get(W);
      expect(record!.history[0]!.url).toBe(at("/find"));
      expect(JSON.stringify(record!.history)).not.toContain("results");
    },
    SLOW,
  );

  test(
    "a step that sends the form after a write that left it (submit auto): a tool that knows nothing of secrets sends nothing of it",
    async () => {
      // The write empties its field before it answers, so a later step (here one that submits the
      // form from the page, knowing nothing of secrets) finds nothing to send.
      await putYaml(
        "late-send",
        `steps:\n  - tool: navigate\n    args: {url: "${at("/find")}"}\n  - tool: write\n    args: {selector: {label: Search}, secret: {name: app-login, key: password}, submit: auto}\n  - tool: test_submit\n`,
      );
      const run = await call("POST", "/flows/late-send/run", {});
      const report = run.body;
      expect(report.status).toBe("ok");
      expect(report.url).toBe(at("/results?q="));
      expect(report.url_redacted).toBeUndefined();
      expect(report.title).toBe("Results");
      const record = await server.app.services.store.get(W);
      expect(record!.history[0]!.url).toBe(at("/results?q="));
    },
    SLOW,
  );

  test(
    "a timeout ends the run at the step in progress",
    async () => {
      await putYaml(
        "slow",
        `timeout: 1.5\nsteps:\n  - tool: navigate\n    args: {url: "${at("/after")}"}\n  - tool: navigate\n    args: {url: "${at("/slow")}"}\n  - tool: navigate\n    args: {url: "${at("/other")}"}\n`,
      );
      const started = performance.now();
      const run = await call("POST", "/flows/slow/run", {});
      const seconds = (performance.now() - started) / 1000;
      const report = run.body;
      expect(report.status).toBe("timeout");
      expect(report.steps).toHaveLength(2);
      expect(report.steps[1]).toMatchObject({ tool: "navigate", ok: false });
      expect(report.steps[1].error).toBe("the flow ran out of time during this step: its timeout is 1.5 s");
      // The step still loading is given a short grace to finish, never the next step.
      expect(seconds).toBeLessThan(8);
      const record = await server.app.services.store.get(W);
      expect(record!.history.map((v) => v.url)).not.toContain(at("/other"));
    },
    SLOW,
  );

  test(
    "a browser reaped during a run is reopened once, on the run's last page; the run says so once",
    async () => {
      // The reopened browser goes where the run had got to (written before the reopen), not where it started.
      await putYaml(
        "reaped",
        `steps:\n  - tool: navigate\n    args: {url: "${at("/after")}"}\n  - tool: test_reap\n  - tool: extract\n    args: {selector: {css: h1}}\n    return: true\n  - tool: navigate\n    args: {url: "${at("/other")}"}\n`,
      );
      expect((await server.app.services.store.get(W))!.history[0]!.url).not.toBe(at("/after"));
      const old = (await server.app.services.store.get(W))!.session_id;
      const run = await call("POST", "/flows/reaped/run", {});
      const report = run.body;
      expect(report.status).toBe("ok");
      expect(report.steps.map((s: any) => s.ok)).toEqual([true, true, true, true]);
      expect(report.steps[2].result.result).toBe("After");
      expect(report.url).toBe(at("/other"));
      // What was saved came back into the new browser, and the run carries that report once.
      expect(report.site_data.restored).toContain("sso.example.test");
      for (const s of report.steps) expect(s.site_data).toBeUndefined();
      const record = await server.app.services.store.get(W);
      expect(record!.session_id).not.toBe(old);
      expect(record!.session_id).not.toBe("");
      reaped.push(record!.session_id);
      expect(record!.history[0]!.url).toBe(at("/other"));
      const next = await call("POST", "/flows/tour/run", {});
      expect(next.body.status).toBe("ok");
      expect(next.body.site_data).toBeUndefined();
    },
    SLOW,
  );

  test(
    "an open_session step replaces the browser and an end_browser step ends it, mid-run",
    async () => {
      await putYaml(
        "restart",
        `steps:\n  - tool: navigate\n    args: {url: "${at("/other")}"}\n  - tool: open_session\n    args: {url: "${at("/after")}"}\n    return: true\n  - tool: navigate\n    args: {url: "${at("/home")}"}\n  - tool: end_browser\n`,
      );
      const old = (await server.app.services.store.get(W))!.session_id;
      const run = await call("POST", "/flows/restart/run", {});
      const report = run.body;
      expect(report.status).toBe("ok");
      expect(report.steps.map((s: any) => [s.tool, s.ok, s.url])).toEqual([
        ["navigate", true, at("/other")],
        ["open_session", true, at("/after")],
        ["navigate", true, at("/home")],
        ["end_browser", true, undefined],
      ]);
      // The new browser came back with what the sign-in saved.
      expect(report.steps[1].result.site_data.restored).toContain("sso.example.test");
      expect(report.url).toBe(at("/home"));
      const record = await server.app.services.store.get(W);
      expect(record!.session_id).toBe("");
      expect((await fetch(`${testGridUrl}/session/${old}/url`)).status).not.toBe(200);
      expect(record!.history[0]!.url).toBe(at("/home"));
    },
    SLOW,
  );

  test(
    "a global flow runs in any workspace",
    async () => {
      const run = await call("POST", "/flows/shared/run", {});
      expect(run.body).toMatchObject({ status: "ok", url: at("/other"), title: "Other" });
    },
    SLOW,
  );

  test(
    "MCP reports each step as it ends with a progress notification",
    async () => {
      const mcp = await mcpClient(server, W);
      const { text } = await mcp.request("tools/call", {
        name: "run_flow",
        arguments: { name: "tour" },
        _meta: { progressToken: "run-1" },
      });
      const messages = [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1] as string));
      const progress = messages.filter((m) => m.method === "notifications/progress").map((m) => m.params);
      expect(progress).toEqual([
        { progressToken: "run-1", progress: 1, total: 3, message: "step 1/3 navigate: ok" },
        { progressToken: "run-1", progress: 2, total: 3, message: "step 2/3 navigate: ok" },
        { progressToken: "run-1", progress: 3, total: 3, message: "step 3/3 navigate: ok" },
      ]);
      const result = messages.find((m) => m.result)?.result;
      expect(result.structuredContent.status).toBe("ok");
    },
    SLOW,
  );
});

describe("saving site data mid-flow, in a workspace of its own", () => {
  const ONE = at("", "one.example.test");
  const TWO = at("", "two.example.test");
  const THREE = at("", "three.example.test");
  const JAR_SITE = at("", "jar.example.test");

  test(
    "a save mid-flow reads the sites the run reached before it: the page in place, the others in the spare tab",
    async () => {
      // The Grid takes two browsers: this file's first workspace gives its one back.
      await call("DELETE", "/browser");
      await putYaml(
        "mid-save",
        `steps:\n  - tool: navigate\n    args: {url: "${ONE}/one"}\n  - tool: navigate\n    args: {url: "${TWO}/two"}\n  - tool: save_site_data\n    return: true\n  - tool: switch\n    args: {tab: list}\n    return: true\n  - tool: navigate\n    args: {url: "${THREE}/three"}\n`,
        SAVES,
      );
      const opened = await call("POST", "/browser", {}, SAVES);
      expect(opened.status).toBe(200);
      expect((await server.app.services.store.get(SAVES))!.history).toEqual([]);
      const before = store.count(SAVES);
      const run = await call("POST", "/flows/mid-save/run", {}, SAVES);
      expect(run.status).toBe(200);
      const report = run.body;
      expect(report.status).toBe("ok");
      expect(report.steps.map((s: any) => [s.tool, s.ok, s.url])).toEqual([
        ["navigate", true, `${ONE}/one`],
        ["navigate", true, `${TWO}/two`],
        ["save_site_data", true, undefined],
        ["switch", true, undefined],
        ["navigate", true, `${THREE}/three`],
      ]);
      // The save's spare tab closed after its answer, before the next step: the list has the agent's tab only.
      expect(report.steps[3].result.tabs.map((t: { url: string }) => t.url)).toEqual([`${TWO}/two`]);
      // Two was the page when the save ran (its sessionStorage is kept); one was read in the spare tab.
      expect(report.steps[2].result).toEqual({
        url: `${TWO}/two`,
        title: "Two",
        saved: { cookies: 0, sites: [TWO, ONE], skipped: [] },
        uri: "workspace://site-data",
      });
      const record = (await server.app.services.store.get(SAVES))!;
      expect(record.site_data.origins).toEqual({
        [TWO]: { local: { page: "b" } },
        [ONE]: { local: { a: "1" } },
      });
      expect(Object.keys(record.site_data.origins!)).toEqual([TWO, ONE]);
      expect(record.site_data.session).toEqual({ origin: TWO, items: { tab: "b" } });
      expect(record.history.map((v) => v.url)).toEqual([`${THREE}/three`, `${TWO}/two`, `${ONE}/one`]);
      // One write as each step ended that reached a page (one, two, three) or saved, then the run's own.
      expect(store.count(SAVES) - before).toBe(5);
    },
    SLOW,
  );

  test(
    "a flow that saves keeps the data, reports the receipt exactly and never a captured value",
    async () => {
      // An empty browser (what the last test saved is forgotten); the history stays.
      const fresh = await call("POST", "/browser", { restore_site_data: false }, SAVES);
      expect(fresh.body.site_data).toEqual({ forgotten: 2 });
      await putYaml(
        "jar-save",
        `steps:\n  - tool: navigate\n    args: {url: "${JAR_SITE}/jar"}\n  - tool: save_site_data\n    return: true\n`,
        SAVES,
      );
      const run = await call("POST", "/flows/jar-save/run", {}, SAVES);
      expect(run.status).toBe(200);
      const report = run.body;
      expect(report.status).toBe("ok");
      // No cookie or storage value anywhere in the run's report.
      const text = JSON.stringify(report);
      for (const value of Object.values(JAR)) expect(text).not.toContain(value);
      // The other sites the workspace has been to are empty in this browser: read, and left out.
      expect(report.steps[1].result).toEqual({
        url: `${JAR_SITE}/jar`,
        title: "Jar",
        saved: { cookies: 2, sites: [JAR_SITE], skipped: [] },
        uri: "workspace://site-data",
      });

      const data = (await server.app.services.store.get(SAVES))!.site_data;
      expect(data.cookies!.map((c) => [c.name, c.value, c.http_only, c.domain]).sort()).toEqual([
        ["jar_pref", JAR.pref, false, "jar.example.test"],
        ["jar_sid", JAR.sid, true, "jar.example.test"],
      ]);
      expect(data.origins).toEqual({ [JAR_SITE]: { local: { jar_local: JAR.local } } });
      expect(data.session).toEqual({ origin: JAR_SITE, items: { jar_session: JAR.session } });
    },
    SLOW,
  );
});

describe("the admin", () => {
  test(
    "GET /admin/workspaces/{key}/flows, and the row's flows_rev and counts.flows",
    async () => {
      const pane = await call("GET", `/admin/workspaces/${W}/flows`, undefined, null);
      expect(pane.status).toBe(200);
      expect(pane.body).toMatchObject({ enabled: true, saving: true, workspace: W });
      expect(pane.body.flows.map((f: any) => f.name)).toContain("sign-in");
      expect(pane.body.flows.find((f: any) => f.name === "shared").source).toBe("global");
      const row = await call("GET", `/admin/workspaces/${W}`, undefined, null);
      expect(row.body.flows_rev).toBe(pane.body.rev);
      expect(row.body.counts.flows).toBe(pane.body.flows.length);

      await putYaml("later", `steps:\n  - tool: end_browser\n`);
      const after = await call("GET", `/admin/workspaces/${W}`, undefined, null);
      expect(after.body.flows_rev).not.toBe(row.body.flows_rev);
      expect(after.body.counts.flows).toBe(row.body.counts.flows + 1);
      const one = await call("GET", `/admin/workspaces/${W}/flows/later`, undefined, null);
      expect(one.body.yaml).toBe("steps:\n  - tool: end_browser\n");
      expect((await call("GET", "/admin/workspaces/nobody/flows", undefined, null)).status).toBe(404);
    },
    SLOW,
  );
});

describe("without a data directory", () => {
  test(
    "saving is a 400 naming data.dir; global flows are still listed",
    async () => {
      const bare = await startServer({ dataDir: false, configure: (c) => (c.flows.dir = globalDir) });
      try {
        const save = await bare.call("PUT", "/flows/x", { steps: [{ tool: "end_browser" }] });
        expect(save.status).toBe(400);
        expect(save.body.error).toContain("data.dir");
        const list = await bare.call("GET", "/flows");
        expect(list.body.saving).toBe(false);
        expect(list.body.flows.map((f: any) => f.name)).toEqual(["clash", "shared"]);
      } finally {
        await bare.close();
      }
      const off = await startServer({ dataDir: false });
      try {
        const list = await off.call("GET", "/flows");
        expect(list.status).toBe(400);
        expect(list.body.error).toContain("data.dir");
        const admin = await off.call("GET", "/admin/workspaces", undefined, null);
        expect(admin.status).toBe(200);
      } finally {
        await off.close();
      }
    },
    SLOW,
  );
});
