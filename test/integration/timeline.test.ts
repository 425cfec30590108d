// The workspace timeline on the real Grid (issue 16): an agent's calls over MCP (and REST, and as
// flow steps) become entries in order with their statuses; a bound write's entry holds no value,
// anywhere in the timeline's file or the admin's answer; screens are kept only while someone watches
// or timeline.screens is on; and a run kept as a flow (save_flow from_timeline, or the admin's
// range) replays to the same final page.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { serveFixture } from "../support/fixtures.ts";
import { countLooks, type Looks } from "../support/live-frames.ts";
import { type McpClient, mcpClient } from "../support/mcp.ts";
import { actionPages } from "../support/pages.ts";
import { endAll, logLines, startServer, type TestServer, TOKEN } from "../support/server.ts";

const W = "timeline-run";
const PASSWORD = "pw-77c-tq9x-zk4v";
const site = serveFixture(actionPages);
let server: TestServer;
let looks: Looks;
let mcp: McpClient;
const seen: string[] = [];

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKEN}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  seen.push(text);
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}

const timeline = async (w = W, query = "") =>
  (await admin("GET", `/admin/workspaces/${w}/timeline${query}`)).body as {
    entries: any[];
    next: number | null;
  };

const folder = (w: string) => join(server.dataDir as string, "sessions", w, "timeline");

/** An SSE stream of /admin/events watching `w`: its screen events, and the way to close it. */
async function watching(w: string) {
  const ac = new AbortController();
  const res = await fetch(`${server.url}/admin/events?watch=${w}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
    signal: ac.signal,
  });
  expect(res.status).toBe(200);
  const frames: Array<{ live: boolean; hidden?: boolean; jpeg?: string }> = [];
  const reader = res.body!.getReader();
  void (async () => {
    let buf = "";
    const dec = new TextDecoder();
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) return;
      buf += dec.decode(chunk.value, { stream: true });
      for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (block.startsWith("event: screen")) frames.push(JSON.parse(block.split("\ndata: ")[1]!));
      }
    }
  })();
  return { frames, close: () => ac.abort() };
}

const until = async (what: string, fn: () => boolean | Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await Bun.sleep(50);
  }
};

beforeAll(async () => {
  server = await startServer({
    configure: (c) => {
      c.secrets.hold_ms = 300;
      c.secrets.entries = {
        signin: {
          description: "the fixture app's test user",
          allowed_urls: [`http://app.example.test:${site.port}/signin-get`],
          keys: { password: { value: PASSWORD } },
        },
      };
    },
  });
  looks = countLooks(server.app.services.timeline.live);
  mcp = await mcpClient(server, W);
}, 60_000);

afterAll(async () => {
  await endAll(server, [W, "timeline-flow", "timeline-screens"]);
  await server.close();
  site.stop();
});

describe("the timeline of an agent's run", () => {
  test("an MCP run's calls are its entries, newest first, with surface, arguments, status, error and the page after", async () => {
    expect((await mcp.tool("navigate", { url: site.url("/signin-get") })).isError).toBeFalsy();
    const typed = await mcp.tool("write", {
      fields: [
        { selector: { label: "Username" }, text: "plain-name" },
        { selector: { label: "Password" }, secret: { name: "signin", key: "password" } },
      ],
      submit: true,
    });
    expect(typed.structuredContent.url).toBe(`${site.url("/welcome")}?user=plain-name&pw=[hidden]`);
    const missed = await mcp.tool("interact", {
      action: "click",
      selector: { css: "#not-there" },
      timeout: 0,
    });
    expect(missed.isError).toBe(true);
    await mcp.tool("read_page", {});
    const rest = await server.call("POST", "/browser/navigate", { url: site.url("/two") }, W);
    expect(rest.status).toBe(200);

    const { entries } = await timeline();
    expect(entries.map((e) => [e.surface, e.tool, e.status])).toEqual([
      ["rest", "navigate", 200],
      ["mcp", "read_page", 200],
      ["mcp", "interact", 400],
      ["mcp", "write", 200],
      ["mcp", "navigate", 200],
    ]);
    expect(entries.map((e) => e.n)).toEqual([5, 4, 3, 2, 1]);
    const [two, read, click, bound, nav] = entries;
    expect(nav.args).toEqual({ url: site.url("/signin-get") });
    expect([nav.url, nav.title]).toEqual([site.url("/signin-get"), "Sign in"]);
    // The sign-in in one call: the plain text as given, the secret's reference, never its value; its
    // landing [hidden] where the value was.
    expect(bound.args).toEqual({
      fields: [
        { selector: { label: "Username" }, text: "plain-name" },
        { selector: { label: "Password" }, secret: { name: "signin", key: "password" } },
      ],
      submit: true,
    });
    expect([bound.url, bound.title]).toEqual([
      `${site.url("/welcome")}?user=plain-name&pw=[hidden]`,
      "Welcome",
    ]);
    // A failed call: the tool's error in full, and where the page was after it.
    expect(click.error).toBe(missed.content[0].text);
    expect(click.url).toBe(`${site.url("/welcome")}?user=plain-name&pw=[hidden]`);
    expect(click.title).toBe("Welcome");
    expect(read.tool).toBe("read_page");
    expect(two.url).toBe(site.url("/two"));
    for (const e of entries) {
      expect(typeof e.time).toBe("number");
      expect(e.ms).toBeGreaterThanOrEqual(0);
      // Nobody watched and timeline.screens is off: no screens.
      expect(e.screen).toBeUndefined();
    }

    // Paging back: the `before` cursor.
    const first = await timeline(W, "?limit=2");
    expect(first.entries.map((e) => e.n)).toEqual([5, 4]);
    expect(first.next).toBe(4);
    const more = await timeline(W, `?limit=2&before=${first.next}`);
    expect(more.entries.map((e) => e.n)).toEqual([3, 2]);
    expect((await admin("GET", `/admin/workspaces/${W}/timeline?before=x`)).status).toBe(400);

    // The row counts it and moves its revision with each entry.
    const row = (await admin("GET", `/admin/workspaces/${W}`)).body;
    expect(row.counts.timeline).toBe(5);
    expect(row.counts.screens).toBe(0);
    expect(row.timeline_last).toBe(5);
  }, 180_000);

  test("no value anywhere: not in the timeline's file, not in the admin's answers, not in a log line", async () => {
    const files = readdirSync(folder(W), { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    expect(files.map((f) => f.name)).toContain("entries.jsonl");
    const onDisk = files.map((f) => readFileSync(join(f.parentPath, f.name), "latin1")).join("\n");
    expect(onDisk).toContain("[hidden]");
    expect(onDisk).toContain('"secret":{"name":"signin","key":"password"}');
    const everything = [onDisk, ...seen, ...mcp.texts, ...logLines].join("\n");
    expect(everything).not.toContain(PASSWORD);
    expect(everything).not.toContain(encodeURIComponent(PASSWORD));
  });

  test("the file is the workspace's own, and Forget takes the timeline with the record", async () => {
    const { statSync } = await import("node:fs");
    expect(statSync(folder(W)).mode & 0o777).toBe(0o700);
    expect(statSync(join(folder(W), "entries.jsonl")).mode & 0o777).toBe(0o600);
    await endAll(server, [W]);
    expect((await admin("DELETE", `/admin/workspaces/${W}`)).status).toBe(200);
    expect(readdirSync(join(server.dataDir as string, "sessions", W))).not.toContain("timeline");
  }, 60_000);
});

describe("screens along the way", () => {
  const S = "timeline-screens";

  test("kept only while someone watches: a watched call has its JPEG, an unwatched one none, and nothing is taken after the watch ends", async () => {
    const call = (path: string, body: unknown) => server.call("POST", path, body, S);
    expect((await call("/browser/navigate", { url: site.url("/") })).status).toBe(200);
    const watch = await watching(S);
    await until("the first live frame", () => watch.frames.some((f) => f.live));
    const frame = watch.frames.find((f) => f.live)!;
    expect(Buffer.from(frame.jpeg!, "base64").subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(server.app.services.timeline.live.watched(S)).toBe(true);

    await call("/browser/navigate", { url: site.url("/two") });
    // A read-only call keeps no screen, even while watched.
    await call("/browser/read", {});
    // The page changes: the next frame is a different picture.
    await until("a frame of the new page", () => watch.frames.filter((f) => f.live).length >= 2);
    watch.close();
    await until("the watch to end", () => !server.app.services.timeline.live.watched(S));
    // A look already under way when the watch ended may still land; then the loop has ended.
    await until("the live view's last look to end", () => looks.under === 0);
    const { taken } = looks;
    await call("/browser/navigate", { url: site.url("/form") });
    await Bun.sleep(2_500);
    expect(looks.taken).toBe(taken);

    const { entries } = await timeline(S);
    expect(entries.map((e) => [e.tool, e.screen === true])).toEqual([
      ["navigate", false],
      ["read_page", false],
      ["navigate", true],
      ["navigate", false],
    ]);
    const shot = await fetch(`${server.url}${entries[2].screen_url}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(shot.status).toBe(200);
    expect(shot.headers.get("content-type")).toBe("image/jpeg");
    const bytes = new Uint8Array(await shot.arrayBuffer());
    expect([bytes[0], bytes[1]]).toEqual([0xff, 0xd8]);
    expect(bytes.length).toBeGreaterThan(1000);
    expect(readdirSync(join(folder(S), "screens"))).toEqual(["2.jpg"]);
    expect((await admin("GET", `/admin/workspaces/${S}`)).body.counts.screens).toBe(1);
    // Without credentials the screen is not served.
    expect((await fetch(`${server.url}${entries[2].screen_url}`)).status).toBe(401);
  }, 180_000);

  test("timeline.screens on keeps one with every page-changing call, a bound write's too (taken once its fields are empty); Clear screens keeps the entries", async () => {
    server.config.timeline.screens = true;
    try {
      const call = (path: string, body: unknown) => server.call("POST", path, body, S);
      await call("/browser/navigate", { url: site.url("/signin-get") });
      await call("/browser/write", {
        selector: { label: "Password" },
        secret: { name: "signin", key: "password" },
        submit: "auto",
      });
      // One screen at a time per workspace: the write's own is let finish first.
      for (let i = 0; i < 100 && (await timeline(S)).entries[0]?.tool !== "write"; i++) await Bun.sleep(100);
      await call("/browser/navigate", { url: site.url("/two") });
      for (let i = 0; i < 100 && (await timeline(S)).entries[0]?.tool !== "navigate"; i++)
        await Bun.sleep(100);
      const { entries } = await timeline(S);
      expect(entries.slice(0, 3).map((e) => [e.tool, e.screen === true])).toEqual([
        ["navigate", true],
        ["write", true],
        ["navigate", true],
      ]);
      expect((await admin("GET", `/admin/workspaces/${S}`)).body.counts.screens).toBe(4);
      // The next call leaves the page at once, while the write's screen may still be drawing.
      for (let i = 0; i < 4; i++) {
        await call("/browser/navigate", { url: site.url("/signin-get") });
        await call("/browser/write", {
          selector: { label: "Password" },
          secret: { name: "signin", key: "password" },
          submit: "auto",
        });
        await call("/browser/navigate", { url: site.url("/two") });
      }
      const stressed = (await timeline(S)).entries.slice(0, 12);
      expect(stressed.filter((e) => e.tool === "write").every((e) => e.status === 200)).toBe(true);
      const kept = (await admin("GET", `/admin/workspaces/${S}`)).body.counts.screens;
      expect(kept).toBeGreaterThan(3);
      const cleared = await admin("DELETE", `/admin/workspaces/${S}/timeline/screens`);
      expect(cleared.body.cleared).toBe(kept);
      const after = await timeline(S);
      expect(after.entries).toHaveLength(19);
      expect(after.entries.some((e) => e.screen)).toBe(false);
      expect(readdirSync(join(folder(S), "screens"))).toEqual([]);
    } finally {
      server.config.timeline.screens = false;
    }
  }, 180_000);

  test("the live view goes on picturing the page after a bound write (its fields empty)", async () => {
    const call = (path: string, body: unknown) => server.call("POST", path, body, S);
    await call("/browser/navigate", { url: site.url("/signin-get") });
    const watch = await watching(S);
    try {
      await until("a live frame", () => watch.frames.some((f) => f.live));
      await call("/browser/write", {
        selector: { label: "Password" },
        secret: { name: "signin", key: "password" },
        submit: "auto",
      });
      const from = watch.frames.length;
      const now = await fetch(`${server.url}/admin/workspaces/${S}/screen`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(now.status).toBe(200);
      expect(now.headers.get("content-type")).toBe("image/jpeg");
      await until("a picture after the write", () => watch.frames.slice(from).some((f) => f.live));
      expect(watch.frames.slice(from).some((f) => f.hidden === true)).toBe(false);
    } finally {
      watch.close();
    }
  }, 120_000);

  test("the live screen now, for scripts: a JPEG while live, a 404 without a browser", async () => {
    const now = await fetch(`${server.url}/admin/workspaces/${S}/screen`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(now.status).toBe(200);
    expect(now.headers.get("content-type")).toBe("image/jpeg");
    await endAll(server, [S]);
    const gone = await admin("GET", `/admin/workspaces/${S}/screen`);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toBe(`workspace ${S} has no live browser`);
  }, 60_000);
});

describe("keeping a run as a flow", () => {
  const F = "timeline-flow";

  test("save_flow from_timeline keeps the last calls (read-only and failed ones left out), answers with the YAML, and run_flow replays it to the same page", async () => {
    const agent = await mcpClient(server, F);
    await agent.tool("navigate", { url: site.url("/form") });
    await agent.tool("read_page", {});
    await agent.tool("write", { selector: { label: "Email" }, text: "ada@example.test" });
    const wrong = await agent.tool("interact", { action: "click", selector: { css: "#nope" }, timeout: 0 });
    expect(wrong.isError).toBe(true);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${ typed into a field
    await agent.tool("write", { selector: { label: "Full name" }, text: "Ada ${not a param}" });
    const done = await agent.tool("interact", { action: "click", selector: { css: "#go" } });
    const finalUrl = done.structuredContent.url as string;
    expect(finalUrl).toContain("/done?email=ada%40example.test");

    const saved = await agent.tool("save_flow", { name: "signup", from_timeline: { last: 6 } });
    expect(saved.isError).toBeFalsy();
    expect(saved.structuredContent).toMatchObject({ name: "signup", replaced: false, steps: 4 });
    const yaml = saved.structuredContent.yaml as string;
    expect(yaml).toContain("tool: navigate");
    expect(yaml).not.toContain("read_page");
    expect(yaml).not.toContain("#nope");
    // A literal ${ in an argument stays literal.
    expect(yaml).toContain("Ada $${not a param}");

    await agent.tool("navigate", { url: site.url("/") });
    const run = await agent.tool("run_flow", { name: "signup" });
    expect(run.structuredContent.status).toBe("ok");
    expect(run.structuredContent.url).toBe(finalUrl);
    expect(run.structuredContent.title).toBe("Done");

    // The run's steps are entries too, as flow steps, before the run_flow entry.
    const { entries } = await timeline(F);
    expect(entries.slice(0, 5).map((e) => [e.surface, e.tool, e.flow ?? null])).toEqual([
      ["mcp", "run_flow", null],
      ["flow", "interact", "signup"],
      ["flow", "write", "signup"],
      ["flow", "write", "signup"],
      ["flow", "navigate", "signup"],
    ]);

    // That one call, kept again: its steps come with it, and make the same flow.
    const again = await agent.tool("save_flow", { name: "signup-again", from_timeline: { last: 1 } });
    expect(again.structuredContent.steps).toBe(4);
    expect(again.structuredContent.yaml.replace(/#\d+ to #\d+/, "")).toBe(yaml.replace(/#\d+ to #\d+/, ""));

    // Nothing there to keep: a 400 that says why.
    await agent.tool("read_page", {});
    const none = await agent.tool("save_flow", { name: "nothing", from_timeline: { last: 1 } });
    expect(none.isError).toBe(true);
    expect(none.content[0].text).toContain("none of those entries can be a step");
    const both = await agent.tool("save_flow", { name: "x", yaml: "steps: []", from_timeline: { last: 1 } });
    expect(both.isError).toBe(true);
  }, 180_000);

  test("the admin keeps a range of entries as a flow, shown among the workspace's flows, and it replays", async () => {
    const { entries } = await timeline(F);
    const nav = entries.find((e) => e.surface === "mcp" && e.tool === "navigate" && e.url?.endsWith("/form"));
    const click = entries.find((e) => e.surface === "mcp" && e.tool === "interact" && e.status === 200);
    const kept = await admin("POST", `/admin/workspaces/${F}/timeline/flow`, {
      name: "from-range",
      from: click.n,
      to: nav.n,
    });
    expect(kept.status).toBe(200);
    expect(kept.body.steps).toBe(4);
    expect(kept.body.yaml).toContain(`#${nav.n} to #${click.n}`);
    const flows = (await admin("GET", `/admin/workspaces/${F}/flows`)).body.flows.map((f: any) => f.name);
    expect(flows).toContain("from-range");
    await server.call("POST", "/browser/navigate", { url: site.url("/two") }, F);
    const run = await server.call("POST", "/flows/from-range/run", {}, F);
    expect(run.body.status).toBe("ok");
    expect(run.body.url).toBe(click.url);
    const bad = await admin("POST", `/admin/workspaces/${F}/timeline/flow`, { name: "x", from: 0, to: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("from");
  }, 180_000);
});
