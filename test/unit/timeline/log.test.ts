// The timeline's logs and rules without a browser: the newest timeline.keep entries kept (a screen
// goes with its entry), entries numbered in order, a planted symlink never followed, the lifetime of
// the record, the arguments kept as given (a secret's value hidden, a big upload cut), and which
// entries become a flow's steps.

import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AnyAction, LiveBrowser } from "../../../src/actions/action.ts";
import { defaultConfig } from "../../../src/config/schema.ts";
import { badInput } from "../../../src/errors.ts";
import { StepTools } from "../../../src/flows/tools.ts";
import { ACTIONS } from "../../../src/registry.ts";
import { emptyRecord } from "../../../src/store/record.ts";
import { SqliteStore } from "../../../src/store/sqlite.ts";
import { DiskLog } from "../../../src/timeline/disk-log.ts";
import { keptArgs, type NewEntry, type TimelineEntry } from "../../../src/timeline/entry.ts";
import { flowFieldsOf, isStep } from "../../../src/timeline/flow.ts";
import { MemoryLog, type TimelineLog } from "../../../src/timeline/log.ts";
import { jpeg } from "../../support/images.ts";
import { browserlessTimeline, recordCall } from "../../support/timeline.ts";

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "sf-timeline-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const entry = (over: Partial<NewEntry> = {}): NewEntry => ({
  time: 1_790_000_000,
  surface: "mcp",
  tool: "navigate",
  args: { url: "https://app.example.test/" },
  status: 200,
  ms: 5,
  ...over,
});
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);

describe("the disk log", () => {
  test("numbers entries in order and keeps the newest `keep`, their screens with them", async () => {
    const root = tmp();
    const log = new DiskLog(root, 5);
    for (let i = 1; i <= 40; i++) await log.append("w", entry({ ms: i }), i % 2 ? JPEG : null);
    const all = await log.all("w");
    expect(all.map((e) => e.n)).toEqual([36, 37, 38, 39, 40]);
    expect(all.map((e) => e.screen === true)).toEqual([false, true, false, true, false]);
    // Compaction runs past keep plus some slack: the file never holds more than that.
    const lines = readFileSync(join(root, "sessions/w/timeline/entries.jsonl"), "utf8").trim().split("\n");
    expect(lines.length).toBeLessThanOrEqual(5 + 20);
    const screens = readdirSync(join(root, "sessions/w/timeline/screens")).sort();
    expect(screens.length).toBeLessThanOrEqual(13);
    for (const n of [37, 39]) expect(screens).toContain(`${n}.jpg`);
    expect(screens).not.toContain("1.jpg");
    expect(await log.summary("w")).toEqual({ entries: 5, screens: 2, last: 40, newest: 1_790_000_000 });
    expect(await log.screen("w", 39)).toEqual(JPEG);
    expect(await log.screen("w", 1)).toBeNull();
    // Another process (a restart) reads the same numbering on.
    const again = new DiskLog(root, 5);
    expect((await again.append("w", entry(), null)).n).toBe(41);
  });

  test("Clear screens keeps the entries; Clear takes everything", async () => {
    const root = tmp();
    const log = new DiskLog(root, 100);
    await log.append("w", entry(), JPEG);
    await log.append("w", entry(), JPEG);
    expect(await log.clear("w", "screens")).toBe(2);
    expect((await log.all("w")).map((e) => e.screen)).toEqual([undefined, undefined]);
    expect((await log.summary("w")).screens).toBe(0);
    expect(await log.clear("w", "all")).toBe(2);
    expect(existsSync(join(root, "sessions/w/timeline"))).toBe(false);
    expect(await log.all("w")).toEqual([]);
    expect(await log.clear("w", "all")).toBe(0);
  });

  test("a symlink in place of the folder or the file is never followed", async () => {
    const root = tmp();
    const elsewhere = tmp();
    mkdirSync(join(root, "sessions/w"), { recursive: true });
    symlinkSync(elsewhere, join(root, "sessions/w/timeline"));
    const log = new DiskLog(root, 10);
    await expect(log.append("w", entry(), null)).rejects.toThrow("not a real folder");
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(await log.all("w")).toEqual([]);

    const root2 = tmp();
    mkdirSync(join(root2, "sessions/w/timeline"), { recursive: true });
    const target = join(elsewhere, "target");
    symlinkSync(target, join(root2, "sessions/w/timeline/entries.jsonl"));
    await expect(new DiskLog(root2, 10).append("w", entry(), null)).rejects.toThrow();
    expect(existsSync(target)).toBe(false);
  });

  test("a line that is not an entry is skipped, not fatal", async () => {
    const root = tmp();
    const log = new DiskLog(root, 10);
    await log.append("w", entry(), null);
    const file = join(root, "sessions/w/timeline/entries.jsonl");
    await Bun.write(file, `${readFileSync(file, "utf8")}{"n":"x"}\nnot json\n`);
    expect((await new DiskLog(root, 10).all("w")).map((e) => e.n)).toEqual([1]);
  });
});

describe("the memory log", () => {
  test("keeps the newest `keep` and no screens", async () => {
    const log = new MemoryLog(3);
    for (let i = 0; i < 5; i++) await log.append("w", entry());
    expect((await log.all("w")).map((e) => e.n)).toEqual([3, 4, 5]);
    expect(await log.summary("w")).toMatchObject({ entries: 3, screens: 0, last: 5 });
    expect(log.screens).toBe(false);
  });
});

const tools = new StepTools(() => ACTIONS);
const action = (name: string) => ACTIONS.find((a) => a.name === name) as AnyAction;

function timelineWith(
  log: TimelineLog,
  clock: { now: number },
  secrets: Record<string, string> = {},
  keep = 500,
) {
  const config = defaultConfig();
  config.session.ttl = 100;
  config.timeline.keep = keep;
  config.secrets.entries = Object.fromEntries(
    Object.entries(secrets).map(([name, value]) => [name, { keys: { v: { value } } }]),
  );
  // The workspace exists: a timeline is kept only for one that does.
  const store = new SqliteStore();
  void store.set("w", emptyRecord());
  return browserlessTimeline({ config, log, store, tools, now: () => clock.now });
}

describe("the timeline service", () => {
  test("an entry per call: success with its page, failure with its status and error; a value hidden everywhere", async () => {
    const clock = { now: 1000 };
    const log = new MemoryLog(10);
    const t = timelineWith(log, clock, { shop: "sekrit-value-9" });
    await recordCall(
      t,
      { surface: "rest", workspace: "w", action: action("navigate"), args: { url: "x" } },
      async () => ({
        url: "https://app.example.test/?q=sekrit-value-9",
        title: "Found sekrit-value-9",
      }),
    );
    await expect(
      recordCall(
        t,
        { surface: "mcp", workspace: "w", action: action("save_flow"), args: { name: "sekrit-value-9" } },
        () => Promise.reject(badInput("no such thing: sekrit-value-9")),
      ),
    ).rejects.toThrow();
    // The answer does not wait for its entry; reading the timeline does.
    const [ok, failed] = await t.all("w");
    expect(ok).toMatchObject({ n: 1, surface: "rest", tool: "navigate", status: 200, time: 1000 });
    expect([ok?.url, ok?.title]).toEqual(["https://app.example.test/?q=[hidden]", "Found [hidden]"]);
    expect(failed).toMatchObject({ n: 2, tool: "save_flow", status: 400, args: { name: "[hidden]" } });
    expect(failed?.error).toBe("no such thing: [hidden]");
    expect(JSON.stringify(await log.all("w"))).not.toContain("sekrit-value-9");
  });

  test("a call that named elements by ref keeps each one's locator, redacted; one that would show a secret is kept as none", async () => {
    const log = new MemoryLog(10);
    const t = timelineWith(log, { now: 1000 }, { shop: "sekrit-value-9" });
    const located = [
      { selector: { ref: "e6" }, locator: { role: "link", name: "Sign up" } },
      {
        selector: { text: "Pay sekrit-value-9", within: { ref: "e2" } },
        locator: { text: "sekrit-value-9" },
      },
    ];
    const click = { surface: "mcp" as const, workspace: "w", action: action("interact"), located };
    await recordCall(t, { ...click, args: { action: "click", selector: { ref: "e6" } } }, async () => ({}));
    await expect(
      recordCall(t, { ...click, args: { action: "click", selector: { ref: "e7" } } }, () =>
        Promise.reject(badInput("gone")),
      ),
    ).rejects.toThrow();
    const [ok, failed] = await t.all("w");
    expect(ok?.locators).toEqual([
      { selector: { ref: "e6" }, locator: { role: "link", name: "Sign up" } },
      { selector: { text: "Pay [hidden]", within: { ref: "e2" } }, locator: null },
    ]);
    // A failed call is no step: it keeps none.
    expect(failed?.locators).toBeUndefined();
    expect(JSON.stringify(await log.all("w"))).not.toContain("sekrit-value-9");
  });

  test("a timeline lives as long as its record: past session.ttl after its newest entry it is gone", async () => {
    const clock = { now: 1000 };
    const log = new MemoryLog(10);
    const t = timelineWith(log, clock);
    const run = () =>
      recordCall(
        t,
        { surface: "rest", workspace: "w", action: action("navigate"), args: {} },
        async () => ({}),
        clock.now,
      );
    await run();
    clock.now = 1090;
    expect((await t.summary("w")).entries).toBe(1);
    await run();
    clock.now = 1185;
    expect((await t.all("w")).map((e) => e.n)).toEqual([1, 2]);
    clock.now = 1191;
    expect(await t.all("w")).toEqual([]);
    expect((await t.summary("w")).entries).toBe(0);
  });

  test("timeline.keep 0 keeps no timeline", async () => {
    const log = new MemoryLog(0);
    const t = timelineWith(log, { now: 1 }, {}, 0);
    await recordCall(
      t,
      { surface: "rest", workspace: "w", action: action("navigate"), args: {} },
      async () => ({}),
    );
    expect(await log.all("w")).toEqual([]);
  });
});

describe("what is kept of the arguments", () => {
  test("as given, plain data only; past the cap long strings are cut and the entry says so", () => {
    expect(keptArgs({ url: "u", n: 1, ok: true, none: null, list: [1, "a"] })).toEqual({
      args: { url: "u", n: 1, ok: true, none: null, list: [1, "a"] },
      cut: false,
    });
    expect(keptArgs({ bytes: new Uint8Array(3) }).args).toEqual({ bytes: "[bytes]" });
    expect(keptArgs("not an object").args).toEqual({});
    const big = keptArgs({ file: { name: "a.bin", data: "x".repeat(200_000) } });
    expect(big.cut).toBe(true);
    expect((big.args.file as { data: string }).data.length).toBeLessThan(300);
    expect((big.args.file as { name: string }).name).toBe("a.bin");
  });
});

describe("a run as a flow's steps", () => {
  const e = (tool: string, over: Partial<TimelineEntry> = {}): TimelineEntry => ({
    n: 1,
    ...entry({ tool, args: { a: 1 } }),
    ...over,
  });

  test("calls that worked and changed something; read-only ones only when they returned", () => {
    expect(isStep(e("navigate"), tools)).toBe(true);
    expect(isStep(e("navigate", { status: 400 }), tools)).toBe(false);
    expect(isStep(e("read_page"), tools)).toBe(false);
    expect(isStep(e("extract", { return: true }), tools)).toBe(true);
    expect(isStep(e("run_flow"), tools)).toBe(false);
    expect(isStep(e("save_flow"), tools)).toBe(false);
    expect(isStep(e("upload_file", { args_cut: true }), tools)).toBe(false);
    expect(isStep(e("no_such_tool"), tools)).toBe(false);
  });

  test("the fields: the steps in order, return where it was said, a literal ${ kept literal", () => {
    const fields = flowFieldsOf(
      [
        e("navigate", { n: 4, args: { url: "https://app.example.test/" } }),
        e("read_page", { n: 5, args: {} }),
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${ in a typed text
        e("write", { n: 6, args: { selector: { label: "Note" }, text: "costs ${price}" } }),
        e("extract", { n: 7, args: { selector: { css: "h1" } }, return: true }),
      ],
      tools,
    );
    expect(fields).toEqual({
      description: "From the timeline: #4 to #7.",
      steps: [
        { tool: "navigate", args: { url: "https://app.example.test/" } },
        { tool: "write", args: { selector: { label: "Note" }, text: "costs $${price}" } },
        { tool: "extract", args: { selector: { css: "h1" } }, return: true },
      ],
    });
  });
});

describe("a run with refs as a flow's steps", () => {
  const e = (n: number, tool: string, args: Record<string, unknown>, locators?: TimelineEntry["locators"]) =>
    ({ n, ...entry({ tool, args }), ...(locators && { locators }) }) as TimelineEntry;

  test("each selector that held a ref takes the locator its entry kept, whatever field holds it; a secret stays its reference", () => {
    const fields = flowFieldsOf(
      [
        e(3, "interact", { action: "click", selector: { ref: "e6" } }, [
          { selector: { ref: "e6" }, locator: { role: "link", name: "Sign up" } },
        ]),
        e(4, "read_page", {}),
        e(5, "write", { selector: { ref: "f2" }, secret: { name: "shop", key: "password" } }, [
          { selector: { ref: "f2" }, locator: { label: "Password" } },
        ]),
        // The call read its selector with its keys in the schema's order; the caller wrote another.
        e(
          6,
          "interact",
          { action: "drag", selector: { within: { ref: "f1" }, text: "Card" }, target: { ref: "f9" } },
          [
            { selector: { text: "Card", within: { ref: "f1" } }, locator: { css: "#card" } },
            { selector: { ref: "f9" }, locator: { text: "Bin" } },
          ],
        ),
        e(7, "switch", { frame: { ref: "f4" } }, [
          { selector: { ref: "f4" }, locator: { css: 'iframe[name="pay"]' } },
        ]),
        e(8, "interact", { action: "click", selector: { ref: "g1" } }, [
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${ in the page's own text
          { selector: { ref: "g1" }, locator: { text: "Pay ${total}" } },
        ]),
      ],
      tools,
      "Sign up and pay.",
    );
    expect(fields).toEqual({
      description: "Sign up and pay.",
      steps: [
        { tool: "interact", args: { action: "click", selector: { role: "link", name: "Sign up" } } },
        {
          tool: "write",
          args: { selector: { label: "Password" }, secret: { name: "shop", key: "password" } },
        },
        { tool: "interact", args: { action: "drag", selector: { css: "#card" }, target: { text: "Bin" } } },
        { tool: "switch", args: { frame: { css: 'iframe[name="pay"]' } } },
        // A literal ${ stays literal.
        { tool: "interact", args: { action: "click", selector: { text: "Pay $${total}" } } },
      ],
    });
    expect(JSON.stringify(fields)).not.toContain('"ref"');
  });

  test("a ref whose element got no locator refuses the save, naming the step, its entry and what to do", () => {
    const run = (last: TimelineEntry) => () =>
      flowFieldsOf(
        [e(3, "navigate", { url: "https://app.example.test/" }), e(4, "read_page", {}), last],
        tools,
      );
    const none = e(5, "interact", { action: "click", selector: { ref: "e6" } }, [
      { selector: { ref: "e6" }, locator: null },
    ]);
    expect(run(none)).toThrow(
      'step 2 (#5, interact) names its element by ref {"ref":"e6"}, and no locator was kept for it (none found that element alone, or it was gone before one was read): do that call again naming the element by css, text, label or role (read_page\'s JSON gives each element\'s selector) and keep the run from there, or keep a run without #5',
    );
    // An entry from before locators were kept says the same.
    expect(run(e(5, "write", { selector: { ref: "e6" }, text: "x" }))).toThrow(
      "step 2 (#5, write) names its element by ref",
    );
    // A locator kept for another selector is not this one's.
    expect(run(e(5, "interact", { action: "click", selector: { ref: "e7" } }, none.locators))).toThrow(
      'by ref {"ref":"e7"}',
    );
  });
});

describe("a call's screen", () => {
  test("the call's record never waits for its picture: the entry is written once the picture is in", async () => {
    const root = mkdtempSync(join(tmpdir(), "sf-timeline-screen-"));
    try {
      const t = timelineWith(new DiskLog(root, 10), { now: 1000 });
      (
        t as unknown as { needs: { config: { timeline: { screens: boolean } } } }
      ).needs.config.timeline.screens = true;
      // A browser whose picture comes only when the test says so.
      let draw!: () => void;
      const drawn = new Promise<void>((resolve) => {
        draw = resolve;
      });
      const data = Buffer.from(await jpeg(64, 48)).toString("base64");
      const socket = {
        send: async (method: string) => {
          if (method === "browsingContext.captureScreenshot") {
            await drawn;
            return { data };
          }
          if (method === "browsingContext.getTree")
            return { contexts: [{ context: "tab", url: "", children: [] }] };
          return { type: "success", result: { type: "boolean", value: false } };
        },
      };
      const held = { socket, navigationCount: 0, use: () => () => undefined };
      const browser = { id: "b", page: async () => ({ held, where: { tab: "tab", frame: null } }) };
      const end = {
        surface: "rest" as const,
        workspace: "w",
        action: action("navigate"),
        args: {},
        time: 1000,
        ms: 5,
        ended: { ok: true as const, result: { url: "https://app.example.test/", title: "App" } },
        browser: browser as unknown as LiveBrowser,
      };
      let recorded = false;
      const recording = t.ended(end).then(() => {
        recorded = true;
      });
      await Bun.sleep(50);
      expect(recorded).toBe(true);
      draw();
      await recording;
      expect(await t.all("w")).toMatchObject([{ n: 1, tool: "navigate", screen: true }]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
