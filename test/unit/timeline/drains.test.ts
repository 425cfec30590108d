// Hostile input drains no timeline: an entry weighs at most ENTRY_CAP once cut (a 65,000-key body, a
// long validation failure), a workspace that does not exist gets none, and a listing reads the
// entries file's tail, not a 100 MB file from its start. Each bounded by what it measures (bytes).

import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AnyAction } from "../../../src/actions/action.ts";
import { defaultConfig } from "../../../src/config/schema.ts";
import { badInput } from "../../../src/errors.ts";
import { workspaceDir } from "../../../src/files/layout.ts";
import { ACTIONS } from "../../../src/registry.ts";
import { emptyRecord } from "../../../src/store/record.ts";
import { SqliteStore } from "../../../src/store/sqlite.ts";
import { DiskLog } from "../../../src/timeline/disk-log.ts";

const ENTRY_CAP = 16 * 1024;

import { MemoryLog } from "../../../src/timeline/log.ts";
import { browserlessTimeline, recordCall } from "../../support/timeline.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const action = (name: string) => ACTIONS.find((a) => a.name === name) as AnyAction;

async function timeline(log: MemoryLog, existing: string[]) {
  const config = defaultConfig();
  const store = new SqliteStore();
  for (const w of existing) await store.set(w, emptyRecord());
  return browserlessTimeline({ config, log, store });
}

const hugeBody = () =>
  Object.fromEntries(Array.from({ length: 65_000 }, (_, i) => [`key${i}`, `value-${i}`]));

describe("timeline drains", () => {
  test("a 65,000-key body and a long validation failure: each entry at most 16 KB", async () => {
    const log = new MemoryLog(10);
    const t = await timeline(log, ["w"]);
    await recordCall(
      t,
      { surface: "rest", workspace: "w", action: action("navigate"), args: hugeBody() },
      async () => ({
        url: "https://app.example.test/",
      }),
    );
    const refusal = badInput(
      Array.from({ length: 5000 }, (_, i) => `key${i}: unrecognised`).join("; "),
      "key0",
    );
    await recordCall(
      t,
      { surface: "rest", workspace: "w", action: action("navigate"), args: hugeBody() },
      async () => {
        throw refusal;
      },
    ).catch(() => undefined);
    const entries = await log.all("w");
    expect(entries).toHaveLength(2);
    for (const e of entries) {
      expect(JSON.stringify(e).length).toBeLessThanOrEqual(ENTRY_CAP);
      expect(e.args_cut).toBe(true);
    }
    // The refusal is a short summary: its error cut, its arguments a few keys.
    const failed = entries[1]!;
    expect(failed.status).toBe(400);
    expect(failed.error!.length).toBeLessThanOrEqual(1001);
    expect(Object.keys(failed.args).length).toBeLessThanOrEqual(51);
  });

  test("a workspace that does not exist gets no entry, however many names are sprayed", async () => {
    const log = new MemoryLog(10);
    const t = await timeline(log, ["real"]);
    for (let i = 0; i < 50; i++) {
      await recordCall(
        t,
        { surface: "rest", workspace: `ghost-${i}`, action: action("navigate"), args: { url: "x" } },
        async () => {
          throw badInput("url: not a URL", "url");
        },
      ).catch(() => undefined);
    }
    await recordCall(
      t,
      { surface: "rest", workspace: "real", action: action("navigate"), args: {} },
      async () => ({}),
    );
    let ghosts = 0;
    for (let i = 0; i < 50; i++) ghosts += (await log.all(`ghost-${i}`)).length;
    expect(ghosts).toBe(0);
    expect(await log.all("real")).toHaveLength(1);
  });

  test("listing a 40 MB entries file reads its tail only", async () => {
    const root = mkdtempSync(join(tmpdir(), "sf-tail-"));
    dirs.push(root);
    const dir = join(workspaceDir(root, "big"), "timeline");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const line = (n: number) =>
      `${JSON.stringify({ n, time: 1000 + n, surface: "rest", tool: "navigate", args: { pad: "x".repeat(300) }, status: 200, ms: 1 })}\n`;
    const lines: string[] = [];
    for (let n = 1; n <= 110_000; n++) lines.push(line(n));
    writeFileSync(join(dir, "entries.jsonl"), lines.join(""), { mode: 0o600 });
    const size = statSync(join(dir, "entries.jsonl")).size;
    expect(size).toBeGreaterThan(40_000_000);
    const disk = new DiskLog(root, 500);
    const all = await disk.all("big");
    expect(all).toHaveLength(500);
    expect(all[0]!.n).toBe(109_501);
    expect(all[499]!.n).toBe(110_000);
    expect((await disk.summary("big")).last).toBe(110_000);
    // Two reads (the summary's state and the listing), each the tail: under 1 MB of a 40 MB file.
    expect(disk.bytesRead).toBeLessThan(1_000_000);
  });
});
