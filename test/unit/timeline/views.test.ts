// The Timeline tab and the live view, rendered from payloads shaped like the admin API's: entries
// newest first with status pills, errors in full and screens as thumbnails that open large; the
// range to keep as a flow; the pushes that load only newer entries; a live frame; hostile values.
import { describe, expect, test } from "bun:test";
import { TABS } from "../../../src/registry.ts";
import { liveMessage, WorkspacePage } from "../../../src/surfaces/ui/workspace.tsx";
import { Entries, frameMessage, LiveScreen, Newer, TimelinePane } from "../../../src/timeline/view.tsx";
import { render } from "../../../src/views/parts.tsx";
import { all, classes, type El, one, parseHtml, text } from "../../support/html.ts";
import { timelineOf } from "../../support/payloads.ts";

const HOSTILE = `<script>alert(1)</script>"'`;
const NOW = 1_790_800_000;

const payload = (over: Record<string, unknown>[] = []) =>
  timelineOf({
    key: "w1",
    next: null,
    entries: [
      {
        n: 3,
        time: NOW,
        surface: "mcp",
        tool: "interact",
        args: { action: "click", selector: { css: "#go" } },
        status: 400,
        ms: 12,
        error: "nothing matches #go: the page has\n  a button Create",
        url: "https://app.example.test/form",
        title: "Sign up",
      },
      {
        n: 2,
        time: NOW - 5,
        surface: "flow",
        flow: "signup",
        tool: "write",
        args: { selector: { label: "Password" }, secret: { name: "shop", key: "password" } },
        status: 200,
        ms: 40,
        url: "https://app.example.test/welcome?pw=[hidden]",
        title: "Welcome",
        screen: true,
        screen_url: "/admin/workspaces/w1/timeline/2/screen?t=1",
      },
      {
        n: 1,
        time: NOW - 9,
        surface: "rest",
        tool: "navigate",
        args: { url: "https://app.example.test/" },
        status: 200,
        ms: 300,
      },
      ...over,
    ],
  });

const pane = (data = payload(), total = 3, last = 3) =>
  parseHtml(render(TimelinePane({ workspace: "w1", data, rev: "r1", total, last })));

describe("Timeline pane", () => {
  test("entries newest first: number, tool, status pill, surface, ms, time, arguments, the page after", () => {
    const root = pane();
    const entries = all(root, "#timelineList li.entry");
    expect(entries.map((e) => e.attrs.id)).toEqual(["entry3", "entry2", "entry1"]);
    const [click, write, nav] = entries as [El, El, El];
    expect(text(one(click, "code.tool"))).toBe("interact");
    expect(all(click, ".pill").map((p) => [text(p), classes(p)])).toEqual([
      ["400", ["pill", "failed"]],
      ["mcp", ["pill"]],
    ]);
    expect(classes(click)).toContain("failed");
    expect(all(write, ".pill").map(text)).toEqual(["ok", "flow signup"]);
    expect(text(one(nav, ".pill.ok"))).toBe("ok");
    expect(text(one(click, "time"))).toBe(new Date(NOW * 1000).toISOString().slice(11, 19));
    expect(text(one(click, "code.args"))).toBe('{"action":"click","selector":{"css":"#go"}}');
    // A secret reads as its reference.
    expect(text(one(write, "code.args"))).toContain('"secret":{"name":"shop","key":"password"}');
    expect(text(one(write, "p.where"))).toBe("https://app.example.test/welcome?pw=[hidden] · Welcome");
    expect(text(one(root, "#timelineTotal"))).toBe("3");
  });

  test("an error in full, line breaks kept", () => {
    const err = one(pane(), "#entry3 p.error");
    expect(classes(err)).toContain("full");
    expect(text(err)).toBe("nothing matches #go: the page has\n  a button Create");
  });

  test("a screen is a thumbnail that opens its large picture; an entry without one has none", () => {
    const root = pane();
    const thumb = one(root, "#entry2 button.thumb");
    expect([thumb.attrs.commandfor, thumb.attrs.command]).toEqual(["screen2", "show-modal"]);
    expect(one(thumb, "img").attrs.src).toBe("/admin/workspaces/w1/timeline/2/screen?t=1");
    const box = one(root, "dialog#screen2");
    expect(classes(box)).toContain("lightbox");
    expect(one(box, "img").attrs.src).toBe("/admin/workspaces/w1/timeline/2/screen?t=1");
    expect(one(box, "button").attrs.command).toBe("close");
    expect(all(root, "#entry3 img")).toHaveLength(0);
    expect(all(root, "#entry3 dialog")).toHaveLength(0);
  });

  test("Save as flow: a name and the ticked entries, posted to the pane's flow route", () => {
    const root = pane();
    const form = one(root, "form#timelineForm");
    expect([form.attrs["hx-post"], form.attrs["hx-target"]]).toEqual([
      "/ui/workspaces/w1/panes/timeline/flow",
      "#paneTimeline",
    ]);
    expect(all(form, "input[type=checkbox]").map((c) => [c.attrs.name, c.attrs.value])).toEqual([
      ["entry", "3"],
      ["entry", "2"],
      ["entry", "1"],
    ]);
    const name = one(form, "input[name=name]");
    expect("required" in name.attrs).toBe(true);
    expect(text(one(form, "#saveAsFlow"))).toBe("Save as flow");
    expect("disabled" in one(form, "#saveAsFlow").attrs).toBe(false);
    // What a push loads after: the newest shown.
    expect(one(root, "#timelineAfter").attrs.value).toBe("3");
  });

  test("Clear screens and Clear confirm first, then DELETE", () => {
    const root = pane();
    const screens = one(root, "dialog#clearScreensConfirm");
    expect(text(one(screens, ".head"))).toBe("Clear screens");
    expect(one(screens, "button.danger").attrs["hx-delete"]).toBe("/ui/workspaces/w1/panes/timeline/screens");
    const whole = one(root, "dialog#clearTimelineConfirm");
    expect(text(one(whole, "p"))).toBe("3 entries and their screens.");
    expect(one(whole, "button.danger").attrs["hx-delete"]).toBe("/ui/workspaces/w1/panes/timeline");
    expect(one(root, "#clearTimeline").attrs.commandfor).toBe("clearTimelineConfirm");
  });

  test("empty: nothing yet, and nothing to save or clear", () => {
    const root = pane(timelineOf({ entries: [] }), 0, 0);
    expect(text(one(root, "p.empty"))).toBe("Nothing yet.");
    expect("disabled" in one(root, "#saveAsFlow").attrs).toBe(true);
    expect("disabled" in one(root, "#clearTimeline").attrs).toBe(true);
    expect(all(root, "dialog")).toHaveLength(0);
    expect(text(one(root, "#timelineTotal"))).toBe("0");
  });

  test("more than a page: Older loads the next page into its own place", () => {
    const data = { ...payload(), next: 1 };
    const more = one(parseHtml(render(Entries({ workspace: "w1", data }))), "li.more button");
    expect([more.attrs["hx-get"], more.attrs["hx-target"], more.attrs["hx-swap"]]).toEqual([
      "/ui/workspaces/w1/panes/timeline/older?before=1",
      "closest li",
      "outerHTML",
    ]);
  });

  test("newer entries go on top, and move the page's markers on", () => {
    const data = payload();
    const root = parseHtml(
      render(Newer({ workspace: "w1", entries: data.entries.slice(0, 1), rev: "r2", total: 4, last: 4 })),
    );
    expect(all(root, "li.entry").map((e) => e.attrs.id)).toEqual(["entry3"]);
    const after = one(root, "#timelineAfter");
    expect([after.attrs.value, after.attrs["hx-swap-oob"]]).toEqual(["4", "true"]);
    const rev = one(root, "#timelineRev");
    expect([rev.attrs["data-rev"], rev.attrs["hx-swap-oob"]]).toEqual(["r2", "true"]);
    expect(text(one(root, "#timelineTotal"))).toBe("4");
  });

  test("a pushed row with a new timeline_rev loads only the newer entries onto the list", () => {
    const message = parseHtml(liveMessage({ key: "w1", timeline_rev: "6.6.0" }, TABS));
    const partial = all(message, "hx-partial").find((p) =>
      (p.attrs["hx-target"] ?? "").includes("paneTimeline"),
    );
    expect(partial?.attrs["hx-target"]).toContain('[id="paneTimeline"] > [data-rev]:not([data-rev="');
    const loader = one(partial as El, "i");
    expect([
      loader.attrs.id,
      loader.attrs["hx-get"],
      loader.attrs["hx-include"],
      loader.attrs["hx-trigger"],
      loader.attrs["hx-target"],
      loader.attrs["hx-swap"],
    ]).toEqual([
      "timelineRev",
      "/ui/workspaces/w1/panes/timeline/newer",
      "#timelineAfter",
      "load",
      "#timelineList",
      "afterbegin",
    ]);
  });

  test("hostile values stay text", () => {
    const data = timelineOf({
      entries: [
        {
          n: 1,
          time: NOW,
          surface: "mcp",
          tool: HOSTILE,
          args: { text: HOSTILE },
          status: 500,
          ms: 1,
          error: HOSTILE,
          url: HOSTILE,
          title: HOSTILE,
          screen_url: `/x" onerror="alert(1)`,
        },
      ],
    });
    const html = render(TimelinePane({ workspace: "w1", data, rev: "r", total: 1, last: 1 }));
    expect(html).not.toContain("<script>");
    expect(html).not.toContain('" onerror="');
    const root = parseHtml(html);
    expect(text(one(root, "code.tool"))).toBe(HOSTILE);
    expect(text(one(root, "p.error"))).toBe(HOSTILE);
  });
});

describe("the live view", () => {
  test("the workspace page has its place: Not live. without a browser", () => {
    const off = parseHtml(
      WorkspacePage({ row: { key: "w1", live: false }, tabs: TABS, tab: "files", signOut: false }),
    );
    expect(text(one(off, "#liveScreen"))).toBe("Not live.");
    const on = parseHtml(
      WorkspacePage({ row: { key: "w1", live: true }, tabs: TABS, tab: "files", signOut: false }),
    );
    expect(text(one(on, "#liveScreen"))).not.toBe("Not live.");
    expect(render(LiveScreen({ live: false }))).toContain('id="liveView"');
  });

  test("a frame replaces the screen; no frame says Not live.; the picture's data cannot break out", () => {
    const frame = one(parseHtml(frameMessage({ live: true, jpeg: "/9j/AAA=" })), "hx-partial");
    expect([frame.attrs["hx-target"], frame.attrs["hx-swap"]]).toEqual(["#liveScreen", "innerHTML"]);
    expect(one(frame, "img").attrs.src).toBe("data:image/jpeg;base64,/9j/AAA=");
    expect(text(one(parseHtml(frameMessage({ live: false })), "p"))).toBe("Not live.");
    const hostile = one(parseHtml(frameMessage({ live: true, jpeg: `AA" onerror="alert(1)` })), "img");
    expect(hostile.attrs).toEqual({ src: "data:image/jpeg;base64,AAonerror=alert1", alt: "Live screen" });
  });

  test("a frame of known size keeps its place; a page taller than wide is marked tall", () => {
    const wide = one(parseHtml(frameMessage({ live: true, jpeg: "AA", width: 1280, height: 720 })), "img");
    expect([wide.attrs.width, wide.attrs.height, wide.attrs.class]).toEqual(["1280", "720", undefined]);
    const tall = one(parseHtml(frameMessage({ live: true, jpeg: "AA", width: 390, height: 844 })), "img");
    expect(classes(tall)).toEqual(["tall"]);
  });
});
