// Recordings: how soon a finished video that lands in the inbox (written as .partial, then renamed,
// the way rclone delivers) is in its workspace's listing — with events beside a bare chokidar
// watcher seeing the same rename, and with polling beside the poll interval itself — and what the
// collector costs with 1,000 recordings owed: memory beside a collector owing none, one sweep
// beside a sweep owing one, and its CPU while it waits. No Grid: liveness is a set in memory.
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { watch } from "chokidar";
import { FileStore } from "../src/files/store.ts";
import { Log } from "../src/log.ts";

/** Warnings only: a bench prints its figures. */
const QUIET = new Log("warn");

import { Collector } from "../src/recordings/collector.ts";
import { trailer } from "../test/support/recording.ts";
import { median, printTable, type Row } from "./report.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const OWED = 1000;
const VIDEO = (() => {
  const body = new Uint8Array(256 * 1024).map((_, i) => i % 251);
  const t = trailer();
  const out = new Uint8Array(body.length + t.length);
  out.set(body);
  out.set(t, body.length);
  return out;
})();

const hexId = (n: number) => n.toString(16).padStart(32, "0");

function land(inbox: string, name: string): void {
  writeFileSync(join(inbox, `${name}.partial`), VIDEO);
  renameSync(join(inbox, `${name}.partial`), join(inbox, name));
}

/** Milliseconds from a landed file to its entry in the workspace's Recordings listing. */
async function toListing(polling: boolean, pollMs: number, rounds: number): Promise<number[]> {
  const root = mkdtempSync(join(tmpdir(), "sf-bench-rec-"));
  const inbox = join(root, "recordings");
  mkdirSync(inbox);
  const store = new FileStore(root);
  let filed: (() => void) | null = null;
  const c = new Collector({
    log: QUIET,
    store,
    inbox,
    liveIds: async () => null,
    wait: 600,
    polling,
    pollMs,
    events: { changed: () => filed?.() },
  });
  await c.start();
  const times: number[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      const id = hexId(i + 1);
      c.expect("bench", id, "chrome");
      // Let the loop settle into its wait, as it would between a browser's end and its video.
      // A random phase against the poll, as a real delivery has.
      await Bun.sleep(polling ? pollMs * (1 + Math.random()) + 150 : 150);
      const started = performance.now();
      const done = new Promise<void>((resolve) => {
        filed = resolve;
      });
      land(inbox, `bench_${id}.mp4`);
      await done;
      const listed = await store.list("bench", "recordings");
      if (listed.length !== i + 1) throw new Error("the filed video is not listed");
      times.push(performance.now() - started);
    }
  } finally {
    await c.stop();
    rmSync(root, { recursive: true, force: true });
  }
  return times;
}

/** Milliseconds from the same landing to a bare chokidar watcher's event for it. */
async function bareChokidar(rounds: number): Promise<number[]> {
  const inbox = mkdtempSync(join(tmpdir(), "sf-bench-bare-"));
  let seen: ((path: string) => void) | null = null;
  const w = watch(inbox, { ignoreInitial: true, persistent: false });
  w.on("add", (p) => seen?.(p));
  await new Promise<void>((r) => w.once("ready", () => r()));
  const times: number[] = [];
  try {
    for (let i = 0; i < rounds; i++) {
      await Bun.sleep(50);
      const name = `bare_${hexId(i)}.mp4`;
      const started = performance.now();
      const done = new Promise<void>((resolve) => {
        seen = (p) => {
          if (p.endsWith(name)) resolve();
        };
      });
      land(inbox, name);
      await done;
      times.push(performance.now() - started);
    }
  } finally {
    await w.close();
    rmSync(inbox, { recursive: true, force: true });
  }
  return times;
}

const heapMiB = () => {
  Bun.gc(true);
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

async function owedCosts(): Promise<Row[]> {
  const root = mkdtempSync(join(tmpdir(), "sf-bench-owed-"));
  const inbox = join(root, "recordings");
  mkdirSync(inbox);
  // Strays the operator's transport left (never ours to clean): the walk reads them every sweep.
  for (let i = 0; i < 50; i++) writeFileSync(join(inbox, `stray_${i}.mp4`), "x");
  const store = new FileStore(root);
  let lookups = 0;
  const liveIds = async () => {
    lookups++;
    return new Set<string>(Array.from({ length: OWED }, (_, i) => hexId(i)));
  };
  const make = () =>
    new Collector({ log: QUIET, store, inbox, liveIds, wait: 600, polling: false, pollMs: 1000 });
  try {
    // Reference: a started collector owing nothing.
    const before = heapMiB();
    const idle = make();
    await idle.start();
    const idleHeap = heapMiB() - before;
    await idle.stop();

    for (let i = 0; i < OWED; i++) {
      const workspace = `ws${i % 50}`;
      store.writeNote(workspace, hexId(i), { opened: Date.now(), ended: null, browser: "chrome" });
    }
    const base = heapMiB();
    const busy = make();
    const resumeStart = performance.now();
    await busy.start();
    const resumeMs = performance.now() - resumeStart;
    const owedHeap = heapMiB() - base;
    if (busy.owed.size !== OWED) throw new Error(`owed ${busy.owed.size}, not ${OWED}`);

    // One sweep with 1,000 owed, beside one with a single recording owed.
    const sweeps: number[] = [];
    lookups = 0;
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      await busy.sweep();
      sweeps.push(performance.now() - t);
    }
    const lookupsPerSweep = lookups / 10;
    const oneRoot = mkdtempSync(join(tmpdir(), "sf-bench-one-"));
    const oneStore = new FileStore(oneRoot);
    const one = new Collector({
      log: QUIET,
      store: oneStore,
      inbox,
      liveIds,
      wait: 600,
      polling: false,
      pollMs: 1000,
    });
    one.expect("one", hexId(1), "chrome");
    const oneSweeps: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      await one.sweep();
      oneSweeps.push(performance.now() - t);
    }
    rmSync(oneRoot, { recursive: true, force: true });

    // CPU while it waits for the inbox (the production tick: 30 s).
    const cpu0 = process.cpuUsage();
    const wall0 = performance.now();
    await Bun.sleep(5000);
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const wallMs = performance.now() - wall0;
    await busy.stop();

    return [
      {
        what: `heap with ${OWED} owed`,
        value: owedHeap,
        unit: "MiB",
        ref: Math.max(idleHeap, 0.01),
        refName: "a collector owing none",
      },
      { what: `resume ${OWED} notes at start`, value: resumeMs, unit: "ms", ref: 1, refName: "1 ms" },
      {
        what: `one sweep, ${OWED} owed (${lookupsPerSweep} Grid lookups per sweep)`,
        value: median(sweeps),
        unit: "ms",
        ref: median(oneSweeps),
        refName: "one sweep, 1 owed",
      },
      { what: "CPU while waiting, 5 s", value: cpuMs, unit: "ms", ref: wallMs, refName: "wall time" },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export async function main(): Promise<void> {
  const events = await toListing(false, 1000, ROUNDS);
  const bare = await bareChokidar(ROUNDS);
  const poll200 = await toListing(true, 200, Math.ceil(ROUNDS / 2));
  const poll1000 = await toListing(true, 1000, Math.ceil(ROUNDS / 3));
  printTable("a finished video in the inbox → in its listing (median)", [
    {
      what: "events",
      value: median(events),
      unit: "ms",
      ref: median(bare),
      refName: "bare chokidar add event",
    },
    {
      what: "polling, recording.poll=200",
      value: median(poll200),
      unit: "ms",
      ref: 200,
      refName: "poll interval",
    },
    {
      what: "polling, recording.poll=1000 (default)",
      value: median(poll1000),
      unit: "ms",
      ref: 1000,
      refName: "poll interval",
    },
    {
      what: "events, worst of the rounds",
      value: Math.max(...events),
      unit: "ms",
      ref: 1000,
      refName: "1 s",
    },
  ]);
  printTable(`the collector with ${OWED} recordings owed`, await owedCosts());
}

if (import.meta.main) await main();
