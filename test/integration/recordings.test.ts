// Recordings on the real Grid. The standalone test Grid accepts se:recordVideo but records nothing,
// so the test plays the recorder: it reads the recorded browser's Grid id from the Grid's /status and
// drops a real ffmpeg MP4 named with it into the inbox, as the operator's transport would. Filed
// within seconds with events and with polling; a note that survives a restart; a file with no
// trailer filed only once quiet and its browser gone; one that never comes given up with its
// warning. The Grid id reaches no body and no log line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileStore } from "../../src/files/store.ts";
import { Grid } from "../../src/grid/webdriver.ts";
import { Collector } from "../../src/recordings/collector.ts";
import { nameFor } from "../../src/recordings/owed.ts";
import { RECORDING_OFF } from "../../src/workspaces/lifecycle.ts";
import { testGridUrl } from "../support/env.ts";
import { html, serveFixture } from "../support/fixtures.ts";
import { gridIdByVideoName, testMp4 } from "../support/recording.ts";
import { endAll, logLines, startServer, type TestServer, TOKEN, testLog } from "../support/server.ts";

const site = serveFixture({ "/": () => html("<title>Recorded</title><h1>Recorded</h1>") });
const gridIds = new Set<string>();
const bodies: string[] = [];
const roots: string[] = [];
const servers: Array<[TestServer, string[]]> = [];

const until = async (what: () => Promise<boolean> | boolean, ms = 15_000, step = 50) => {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error("timed out");
    await Bun.sleep(step);
  }
};

async function call(server: TestServer, method: string, path: string, body: unknown, workspace: string) {
  const res = await server.call(method, path, body, workspace);
  bodies.push(JSON.stringify(res.body));
  return res;
}

/** A data dir of the test's own (it outlives a server), with the inbox made. */
function dataRoot(): { data: string; inbox: string } {
  const data = mkdtempSync(join(tmpdir(), "sf-rec-e2e-"));
  roots.push(data);
  const inbox = join(data, "recordings");
  mkdirSync(inbox);
  return { data, inbox };
}

async function recordingServer(
  data: string,
  watch: "events" | "poll",
  workspaces: string[],
): Promise<TestServer> {
  const server = await startServer({
    configure: (c) => {
      c.data.dir = data;
      c.recording.enabled = true;
      c.recording.watch = watch;
      c.recording.poll = 200;
    },
  });
  servers.push([server, workspaces]);
  return server;
}

/** Opens a recorded browser; its Grid id, read from the Grid as the recorder would name the file. */
async function openRecorded(server: TestServer, workspace: string): Promise<string> {
  const opened = await call(server, "POST", "/browser", { url: site.url("/"), record: true }, workspace);
  expect(opened.status).toBe(200);
  expect(opened.body.recording).toBe(true);
  expect(opened.body.settings.record).toBe(true);
  const id = await gridIdByVideoName(workspace);
  expect(id).toBeTruthy();
  gridIds.add(id!);
  return id!;
}

const notePath = (data: string, workspace: string, id: string) =>
  join(data, "sessions", workspace, "recordings", ".pending", `${id}.json`);

/** Delivers a file the way rclone does: a .partial name, then a rename. */
function deliver(inbox: string, relative: string, bytes: Uint8Array): void {
  const path = join(inbox, relative);
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(`${path}.partial`, bytes);
  renameSync(`${path}.partial`, path);
}

afterAll(async () => {
  for (const [server, workspaces] of servers) {
    await endAll(server, workspaces).catch(() => undefined);
    await server.close().catch(() => undefined);
  }
  site.stop();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
  const everything = [...bodies, ...logLines].join("\n");
  for (const id of gridIds) expect(everything).not.toContain(id);
});

describe("recording off", () => {
  test("record=true is the exact 400, and no browser is opened", async () => {
    const server = await startServer();
    servers.push([server, ["rec-off"]]);
    const res = await call(server, "POST", "/browser", { record: true }, "rec-off");
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(RECORDING_OFF);
    expect(await gridIdByVideoName("rec-off")).toBeNull();
    expect((await call(server, "GET", "/browser", undefined, "rec-off")).body.live).toBe(false);
  });
});

for (const watch of ["events", "poll"] as const) {
  describe(`recording on, ${watch}`, () => {
    const W = `rec-${watch}`;
    let server: TestServer;
    let root: { data: string; inbox: string };
    let id: string;
    let mp4: Uint8Array<ArrayBuffer>;

    beforeAll(async () => {
      root = dataRoot();
      mp4 = await testMp4();
      server = await recordingServer(root.data, watch, [W]);
    });

    test("the open writes the note before it returns; the workspace says it records", async () => {
      expect((await call(server, "GET", "/browser", undefined, W)).body.recording).toBe(false);
      id = await openRecorded(server, W);
      const note = JSON.parse(readFileSync(notePath(root.data, W, id), "utf8"));
      expect(note).toMatchObject({ ended: null, browser: "chrome" });
      expect(Math.abs(note.opened - Date.now())).toBeLessThan(60_000);
      expect((await call(server, "GET", "/browser", undefined, W)).body.recording).toBe(true);
      const row = await fetch(`${server.url}/admin/workspaces/${W}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      const rowBody = (await row.json()) as any;
      bodies.push(JSON.stringify(rowBody));
      expect(rowBody.recording).toBe(true);
      expect(server.app.services.recordings!.running).toBe(true);
    });

    test("ending the browser marks the note ended; the video dropped in the inbox is filed within seconds", async () => {
      expect((await call(server, "DELETE", "/browser", undefined, W)).status).toBe(200);
      const note = JSON.parse(readFileSync(notePath(root.data, W, id), "utf8"));
      expect(typeof note.ended).toBe("number");
      expect((await call(server, "GET", "/browser", undefined, W)).body.recording).toBe(false);

      // The admin's live stream gets the workspace's row when the recording is filed.
      const events = await fetch(`${server.url}/admin/events`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      const reader = events.body!.getReader();
      let seen = "";
      const pump = (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          seen += new TextDecoder().decode(value);
        }
      })();

      const started = performance.now();
      deliver(root.inbox, `videos/${W}_${id}.mp4`, mp4);
      let files: any[] = [];
      await until(async () => {
        files = (await call(server, "GET", "/files/recordings", undefined, W)).body.files;
        return files.length === 1;
      });
      const seconds = (performance.now() - started) / 1000;
      expect(seconds).toBeLessThan(5);
      expect(files[0].name).toBe(nameFor(note.opened));
      expect(files[0].content_type).toBe("video/mp4");
      expect(existsSync(notePath(root.data, W, id))).toBe(false);
      expect(readdirSync(join(root.inbox, "videos"))).toEqual([]);

      await until(() => /"recordings":1/.test(seen), 5000);
      await reader.cancel();
      await pump.catch(() => undefined);

      const part = await fetch(`${server.url}${files[0].url}`, { headers: { range: "bytes=4-7" } });
      expect(part.status).toBe(206);
      expect(new TextDecoder().decode(await part.arrayBuffer())).toBe("ftyp");
      const whole = new Uint8Array(await (await fetch(`${server.url}${files[0].url}`)).arrayBuffer());
      expect(whole).toEqual(mp4);
      await until(() => !server.app.services.recordings!.running, 5000);
    });

    test("the next open without record does not inherit it", async () => {
      const again = await call(server, "POST", "/browser", { url: site.url("/") }, W);
      expect(again.status).toBe(200);
      expect(again.body.recording).toBe(false);
      expect(again.body.settings.record).toBeUndefined();
      expect(await gridIdByVideoName(W)).toBeNull();
      await call(server, "DELETE", "/browser", undefined, W);
    });
  });
}

describe("a note that cannot be written", () => {
  test("the browser still opens and records; the result says filing failed, without a path", async () => {
    const W = "rec-unfilable";
    const root = dataRoot();
    const server = await recordingServer(root.data, "events", [W]);
    // .pending cannot be made: a file holds its name.
    mkdirSync(join(root.data, "sessions", W, "recordings"), { recursive: true });
    writeFileSync(join(root.data, "sessions", W, "recordings", ".pending"), "");
    const before = logLines.length;
    const opened = await call(server, "POST", "/browser", { url: site.url("/"), record: true }, W);
    expect(opened.status).toBe(200);
    expect(opened.body.recording).toBe(true);
    expect(opened.body.recording_error).toMatch(/^this recording cannot be filed: [A-Za-z]+/);
    expect(opened.body.recording_error).not.toContain("/");
    const id = await gridIdByVideoName(W);
    expect(id).toBeTruthy();
    gridIds.add(id!);
    expect((await call(server, "GET", "/browser", undefined, W)).body.live).toBe(true);
    expect(logLines.slice(before).join("\n")).toContain(`recording for ${W} cannot be filed:`);
    expect(server.app.services.recordings!.owed.has(id!)).toBe(false);
    await call(server, "DELETE", "/browser", undefined, W);
  });
});

describe("a reap", () => {
  test("a recorded browser the Grid reaped comes back recorded, and the collector owes its video too", async () => {
    const W = "rec-reap";
    const root = dataRoot();
    const server = await recordingServer(root.data, "events", [W]);
    const first = await openRecorded(server, W);
    await fetch(`${testGridUrl}/session/${first}`, { method: "DELETE" });
    const nav = await call(server, "POST", "/browser/navigate", { url: site.url("/") }, W);
    expect(nav.status).toBe(200);
    const second = await gridIdByVideoName(W);
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
    gridIds.add(second!);
    expect(existsSync(notePath(root.data, W, second!))).toBe(true);
    expect(existsSync(notePath(root.data, W, first))).toBe(true);
    const owed = server.app.services.recordings!.owed;
    expect(owed.has(first) && owed.has(second!)).toBe(true);
    await call(server, "DELETE", "/browser", undefined, W);
  });
});

describe("a restart", () => {
  test("a note written by one server is filed by the next", async () => {
    const W = "rec-restart";
    const root = dataRoot();
    const mp4 = await testMp4();
    const one = await recordingServer(root.data, "events", [W]);
    const id = await openRecorded(one, W);
    expect((await call(one, "DELETE", "/browser", undefined, W)).status).toBe(200);
    await one.close();
    expect(existsSync(notePath(root.data, W, id))).toBe(true);

    deliver(root.inbox, `${W}_${id}.mp4`, mp4);
    const before = logLines.length;
    const two = await recordingServer(root.data, "events", [W]);
    expect(logLines.slice(before).join("\n")).toContain("recordings: 1 owed from before the restart");
    await until(
      async () => (await call(two, "GET", "/files/recordings", undefined, W)).body.files.length === 1,
    );
    expect(existsSync(notePath(root.data, W, id))).toBe(false);
  });
});

describe("the rules that wait (quiet threshold, liveness tick and wait shortened for the test)", () => {
  let server: TestServer;
  let collector: Collector;
  let root: { data: string; inbox: string };
  const filed: string[] = [];

  beforeAll(async () => {
    root = dataRoot();
    const grid = new Grid(testGridUrl);
    collector = new Collector({
      log: testLog(),
      store: new FileStore(root.data),
      inbox: root.inbox,
      liveIds: () => grid.sessions(),
      wait: 2,
      polling: false,
      pollMs: 200,
      tick: 0.3,
      idleAfter: 1,
      events: { changed: (w) => filed.push(w) },
    });
    await collector.start();
    server = await startServer({
      hooks: { recordings: collector },
      configure: (c) => {
        c.data.dir = root.data;
      },
    });
    servers.push([server, ["rec-quiet", "rec-never"]]);
  });
  afterAll(() => collector.stop());

  test("a file with no trailer is filed only once it is quiet and its browser is gone", async () => {
    const W = "rec-quiet";
    const id = await openRecorded(server, W);
    const mp4 = await testMp4();
    const mfra = new DataView(mp4.buffer, mp4.byteOffset).getUint32(mp4.length - 4);
    const killed = mp4.slice(0, mp4.length - mfra); // what a killed ffmpeg leaves: no mfra, no mfro
    deliver(root.inbox, `${W}_${id}.mp4`, killed);
    await Bun.sleep(2500);
    expect(filed).toEqual([]); // quiet for over a second, but the browser lives: never early
    const before = logLines.length;
    expect((await call(server, "DELETE", "/browser", undefined, W)).status).toBe(200);
    await until(() => filed.length === 1, 10_000);
    expect(filed).toEqual([W]);
    const listed = (await call(server, "GET", "/files/recordings", undefined, W)).body.files;
    expect(listed).toHaveLength(1);
    expect(listed[0].size).toBe(killed.length);
    expect(logLines.slice(before).join("\n")).toContain("ends without a trailer; filed as it is");
  });

  test("a recording that never arrives is given up after the wait, with its warning", async () => {
    const W = "rec-never";
    const id = await openRecorded(server, W);
    const before = logLines.length;
    expect((await call(server, "DELETE", "/browser", undefined, W)).status).toBe(200);
    await until(() => !existsSync(notePath(root.data, W, id)), 10_000);
    const said = logLines.slice(before).join("\n");
    expect(said).toMatch(
      /WARN {2}recording for session rec-never \(opened \d\d:\d\d UTC\) never reached RECORDING_DIR; see the README's Recording section/,
    );
    expect(said).not.toContain(id);
    expect(collector.owed.has(id)).toBe(false);
  });
});
