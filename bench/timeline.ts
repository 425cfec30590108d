// What the timeline and watching cost a call: interact click through REST with no timeline
// (timeline.keep 0), with one nobody watches (an entry, no screen), and while the live view takes a
// frame of the same browser about once a second; then the screen's own time, a call with its screen
// at an agent's pace, back-to-back calls watched as the UI watches, and one live frame, each beside
// the call. `bun bench/timeline.ts`; BENCH_ROUNDS sets the rounds.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Log } from "../src/log.ts";
import { LiveScreens, reach, screenOf } from "../src/timeline/screens.ts";
import { html, serveFixture } from "../test/support/fixtures.ts";
import { median, printTable, type Row, timed } from "./report.ts";
import { benchServer, TOKEN } from "./server.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const W = "bench-timeline";

const PAGE = `<title>Bench</title>
<style>body{font:18px sans-serif;background:#f4f7ff} .row{padding:6px;border-bottom:1px solid #ccd}</style>
<h1>Orders</h1>
<button id="b" onclick="document.getElementById('n').textContent = String(Number(document.getElementById('n').textContent) + 1)">Add</button>
<span id="n">0</span>
${Array.from({ length: 20 }, (_, i) => `<div class="row">Order ${i + 1} · Tea · ${i + 2} items</div>`).join("")}`;

export async function main(): Promise<void> {
  const site = serveFixture({ "/bench": () => html(PAGE) });
  const dataDir = mkdtempSync(join(tmpdir(), "sf-bench-timeline-"));
  const { app, base, close } = await benchServer((c) => {
    c.data.dir = dataDir;
    c.grid.open_timeout = 600;
  });
  const { config, timeline } = app.services;
  const click = async () => {
    const res = await fetch(`${base}/browser/interact/click`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": W, "content-type": "application/json" },
      body: JSON.stringify({ selector: { css: "#b" } }),
    });
    if (res.status !== 200) throw new Error(`click: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  try {
    const open = await fetch(`${base}/browser/navigate`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": W, "content-type": "application/json" },
      body: JSON.stringify({ url: site.url("/bench") }),
    });
    if (open.status !== 200) throw new Error(`navigate: ${open.status} ${await open.text()}`);
    for (let i = 0; i < 5; i++) await click();

    const off: number[] = [];
    const on: number[] = [];
    const liveOnly: number[] = [];
    const watched: number[] = [];
    const screens: number[] = [];
    const frames: number[] = [];
    const spaced: number[] = [];
    const spacedOff: number[] = [];
    const reaching = {
      store: app.services.store,
      connection: (id: string) => app.services.workspaces.connection(id),
    };
    // Blocks of back-to-back calls: without a timeline and with one; with the live view's frames
    // (about one a second of this browser) but no screens (a view of its own, which the timeline does
    // not count as watching); then watched as the UI watches, each call keeping its screen. Each
    // watch starts before its block, so its calls meet the frames as an agent's would.
    const BLOCK = 10;
    for (let b = 0; b < Math.max(1, Math.round(ROUNDS / BLOCK)); b++) {
      for (let i = 0; i < BLOCK; i++) {
        config.timeline.keep = 0;
        off.push(await timed(click));
        config.timeline.keep = 500;
        on.push(await timed(click));
      }
      const view = new LiveScreens({ ...reaching, logger: new Log("warn") });
      const unview = view.watch(W, () => undefined);
      await Bun.sleep(300);
      for (let i = 0; i < BLOCK; i++) liveOnly.push(await timed(click));
      unview();

      const stop = timeline.live.watch(W, () => undefined);
      await Bun.sleep(300);
      const [ms0, n0] = [timeline.screenMs, timeline.screensTaken];
      for (let i = 0; i < BLOCK; i++) watched.push(await timed(click));
      await timeline.settled(W);
      if (timeline.screensTaken > n0) screens.push((timeline.screenMs - ms0) / (timeline.screensTaken - n0));
      stop();
    }
    for (let i = 0; i < ROUNDS; i++) {
      frames.push(
        await timed(async () => {
          const at = await reach(reaching, W);
          if (!at) throw new Error("no live browser");
          try {
            await screenOf(at);
          } finally {
            at.release();
          }
        }),
      );
      // An agent's pace: each call after the last one's screen is in, beside one without a screen.
      spacedOff.push(await timed(click));
      await timeline.settled(W);
      config.timeline.screens = true;
      spaced.push(await timed(click));
      await timeline.settled(W);
      config.timeline.screens = false;
    }
    // A person's click over the admin route, watched: until it is in the page (the route answers
    // once performActions has), and until the live view's next frame reaches a viewer.
    const person = await personInput(base, timeline.live, W);
    const call = median(on);
    const rows: Row[] = [
      {
        what: "interact click through REST, timeline on (nobody watching: an entry, no screen)",
        value: call,
        unit: "ms",
        ref: median(off),
        refName: "the same with no timeline (timeline.keep 0)",
        target: "≤ 1.1×",
      },
      {
        what: "the same while the live view runs, screens off (a frame of this browser about once a second)",
        value: median(liveOnly),
        unit: "ms",
        ref: call,
        refName: "nobody watching",
        target: "≤ 1.1×",
      },
      {
        what: "the screen's own time (BiDi JPEG at quality 0.5, with the typed-secret check)",
        value: median(screens),
        unit: "ms",
        ref: call,
        refName: "the call itself, nobody watching",
      },
      {
        what: "a call with its screen, at an agent's pace (the screen drawn after the answer)",
        value: median(spaced),
        unit: "ms",
        ref: median(spacedOff),
        refName: "the same pace, no screen",
      },
      {
        what: "back-to-back calls watched as the UI watches (frames, and a screen each)",
        value: median(watched),
        unit: "ms",
        ref: call,
        refName: "nobody watching",
      },
      {
        what: "a person's click over POST /admin/workspaces/{key}/input, until it is in the page",
        value: median(person.click),
        unit: "ms",
        ref: 300,
        refName: "the target",
        target: "≤ 300 ms",
      },
      {
        what: "the same, until the live view's next frame reaches a viewer",
        value: median(person.frame),
        unit: "ms",
        ref: 500,
        refName: "the target",
        target: "≤ 500 ms",
      },
      {
        what: "one live frame of the view",
        value: median(frames),
        unit: "ms",
        ref: 1000,
        refName: "the view's pace",
      },
    ];
    printTable("the timeline and watching", rows);
    const [last] = (await timeline.batch(W, { limit: 1 })).entries;
    const bytes = (await timeline.screen(W, last?.n ?? 0))?.length ?? 0;
    console.log(`A screen of this page weighs ${Math.round(bytes / 1024)} KiB.`);
  } finally {
    await fetch(`${base}/browser`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": W },
    }).catch(() => undefined);
    await close();
    site.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function personInput(base: string, live: LiveScreens, workspace: string) {
  const headers = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
  const where = await fetch(`${base}/browser/script`, {
    method: "POST",
    headers: { ...headers, "x-workspace": workspace },
    body: JSON.stringify({
      script: "const r = b.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]",
    }),
  });
  const [x, y] = ((await where.json()) as { result: number[] }).result as [number, number];
  let framed: (() => void) | null = null;
  const stop = live.watch(workspace, () => framed?.());
  const click: number[] = [];
  const frame: number[] = [];
  try {
    await Bun.sleep(1500);
    for (let i = 0; i < Math.min(ROUNDS, 20); i++) {
      const began = performance.now();
      const next = new Promise<number>((resolve) => {
        framed = () => {
          framed = null;
          resolve(performance.now() - began);
        };
      });
      const res = await fetch(`${base}/admin/workspaces/${workspace}/input`, {
        method: "POST",
        headers,
        body: JSON.stringify({ click: { x, y } }),
      });
      click.push(performance.now() - began);
      if (res.status !== 200) throw new Error(`input: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      frame.push(await Promise.race([next, Bun.sleep(3000).then(() => 3000)]));
      await Bun.sleep(300);
    }
  } finally {
    stop();
  }
  return { click, frame };
}

if (import.meta.main) await main();
