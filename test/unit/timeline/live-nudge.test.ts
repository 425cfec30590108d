// The live view while a person drives: an input wakes the loop for a frame at once, then frames
// come about 4 a second; nobody driving, about one a second.

import { expect, test } from "bun:test";
import type { AnyAction } from "../../../src/actions/action.ts";
import type { CallEnd } from "../../../src/actions/call.ts";
import { Log } from "../../../src/log.ts";
import { ACTIONS } from "../../../src/registry.ts";
import { type Frame, LiveScreens, type Reach } from "../../../src/timeline/screens.ts";
import { browserlessTimeline } from "../../support/timeline.ts";

// Every frame differs, so each one taken reaches the viewer.
class Counting extends LiveScreens {
  n = 0;
  override async frame(): Promise<Frame> {
    return { live: true, jpeg: new Uint8Array([this.n++]) };
  }
}

async function framesIn(ms: number, drive: (live: LiveScreens) => void): Promise<number[]> {
  const live = new Counting({ logger: new Log() } as Reach & { logger: Log });
  const at: number[] = [];
  const began = performance.now();
  const stop = live.watch("w", () => at.push(performance.now() - began));
  await Bun.sleep(100);
  drive(live);
  await Bun.sleep(ms);
  stop();
  return at;
}

test("nobody driving: about one frame a second", async () => {
  const at = await framesIn(1400, () => undefined);
  expect(at.length).toBeLessThanOrEqual(3);
});

test("an input: a frame at once, then about 4 a second", async () => {
  const at = await framesIn(1400, (live) => live.nudge("w"));
  // The first frame at the start, the next right after the nudge (100 ms in), then every ~250 ms.
  expect(at[1]!).toBeLessThan(200);
  expect(at.length).toBeGreaterThanOrEqual(6);
});

test("the timeline hears a person's input that landed and nudges the live view; an agent's call, or an input that failed, does not", async () => {
  const t = browserlessTimeline({});
  const nudged: string[] = [];
  t.live.nudge = (w) => void nudged.push(w);
  const action = ACTIONS.find((a) => a.name === "navigate") as AnyAction;
  const end = (surface: CallEnd["surface"], ok: boolean): CallEnd => ({
    surface,
    workspace: surface,
    action,
    args: {},
    time: 1000,
    ms: 1,
    ended: ok ? { ok: true, result: {} } : { ok: false, error: new Error("no") },
    browser: null,
  });
  await t.ended(end("person", true));
  await t.ended(end("rest", true));
  await t.ended(end("mcp", true));
  await t.ended({ ...end("person", false), workspace: "failed" });
  expect(nudged).toEqual(["person"]);
});
