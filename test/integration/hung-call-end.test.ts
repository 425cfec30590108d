// A call that hangs (a document that never answers) holds its workspace's turn. The end a test file
// makes of its browsers before its server closes (test/support/server.ts endAll) ends that browser
// anyway: end_browser would wait for the turn, give up, and the closed server would leave the browser
// on the Grid, one of its two slots taken for the files after ("the Grid has no free slot" in CI).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { gridHolds, leavesGrid } from "../support/grid-session.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "hung-call-end";
let asked: () => void = () => {};
const hanging = new Promise<void>((resolve) => (asked = resolve));
let release: () => void = () => {};
const released = new Promise<void>((resolve) => (release = resolve));
const site = serveFixture({
  "/start": () => html("<title>Start</title>"),
  // A document that never ends (a byte each second keeps the fixture from timing it out).
  "/never": () => {
    asked();
    let tick: ReturnType<typeof setInterval>;
    let open = true;
    const body = new ReadableStream<string>({
      start(c) {
        c.enqueue("<!doctype html><title>Never</title>");
        tick = setInterval(() => c.enqueue(" "), 1000);
        void released.then(() => {
          clearInterval(tick);
          if (open) c.close();
        });
      },
      cancel: () => {
        open = false;
        clearInterval(tick);
      },
    });
    return new Response(body, { headers: { "content-type": "text/html" } });
  },
});
let server: TestServer;

beforeAll(async () => {
  // A call waits 5 s for the turn (not 60): the end a hung call blocks gives up within the test.
  server = await startServer({
    dataDir: false,
    configure: (c) => {
      c.grid.command_timeout = 5;
    },
  });
}, 180_000);

afterAll(async () => {
  release();
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

test("a browser whose call still hangs is ended by the file's endAll, and leaves the Grid", async () => {
  expect((await server.call("POST", "/browser/navigate", { url: site.url("/start") }, W)).status).toBe(200);
  const id = (await server.app.services.store.get(W))?.session_id as string;
  expect(await gridHolds(id)).toBe(true);
  const hung = server.call("POST", "/browser/navigate", { url: site.url("/never") }, W).catch(() => null);
  await hanging;
  await endAll(server, [W]);
  expect(await leavesGrid(id)).toBe(true);
  // The hung call answers (its browser ended under it), and the workspace takes a call again.
  await hung;
  const again = await server.call("POST", "/browser/navigate", { url: site.url("/start") }, W);
  expect(again.status).toBe(200);
  expect(again.body.title).toBe("Start");
}, 60_000);
