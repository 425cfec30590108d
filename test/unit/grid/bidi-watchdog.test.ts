// A command that waits is a health probe for the channel, on a BiDi endpoint of the test's own: a
// channel that stops answering everything is found dead within seconds, whatever the waiting
// command's deadline; one that answers the probe while a slow command waits is left alone.
import { afterAll, expect, test } from "bun:test";
import { BidiDead, BidiSocket, type Health } from "../../../src/grid/bidi.ts";

let mute = false;
/** Commands the endpoint holds without answering (a slow navigation). */
const held = new Set<number>();
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req, srv) => (srv.upgrade(req) ? undefined : new Response("no", { status: 400 })),
  websocket: {
    message(ws, data) {
      const msg = JSON.parse(String(data)) as { id: number; method: string };
      if (mute) return;
      if (msg.method === "browsingContext.navigate") {
        held.add(msg.id);
        return;
      }
      ws.send(JSON.stringify({ id: msg.id, type: "success", result: { contexts: [] } }));
    },
  },
});

afterAll(() => server.stop(true));

const url = `ws://127.0.0.1:${server.port}/`;
// The production timings (2 s quiet, 3 s probe, 1 s tick) shortened tenfold.
const health: Health = { quietMs: 200, probeMs: 300, tickMs: 100 };

test("a channel that stops answering is found dead within seconds; the waiting command fails as BidiDead", async () => {
  mute = false;
  const socket = await BidiSocket.connect(url, { health });
  expect(await socket.probe()).toBe(true);
  mute = true;
  const t0 = performance.now();
  const err = await socket
    .send("browsingContext.navigate", { context: "c", url: "http://a.example.test/" }, { timeoutMs: 300_000 })
    .catch((e) => e);
  expect(err).toBeInstanceOf(BidiDead);
  expect(performance.now() - t0).toBeLessThan(1_500);
  expect(socket.dead).toBe(true);
  // Nothing more is sent on it.
  expect(await socket.send("browsingContext.getTree", {}).catch((e) => e)).toBeInstanceOf(BidiDead);
}, 30_000);

test("a slow command on a channel that answers the probe is waited for", async () => {
  mute = false;
  const socket = await BidiSocket.connect(url, { health });
  let settled = false;
  const slow = socket
    .send("browsingContext.navigate", { context: "c", url: "http://a.example.test/" }, { timeoutMs: 300_000 })
    .finally(() => {
      settled = true;
    });
  slow.catch(() => undefined);
  await Bun.sleep(1_500);
  expect([settled, socket.dead, socket.closed]).toEqual([false, false, false]);
  socket.close();
}, 30_000);
