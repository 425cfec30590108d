// A dialog ends the commands that wait on it where they wait: in the socket, told by the held
// connection, on a BiDi endpoint of the test's own (a press that opens an alert never answers
// until the alert is answered). A dialog of another tab, or a command that did not ask, is left.
import { afterAll, expect, test } from "bun:test";
import type { ServerWebSocket } from "bun";
import { BidiSocket } from "../../../src/grid/bidi.ts";
import { HeldConnection } from "../../../src/grid/held.ts";
import { Page } from "../../../src/grid/page.ts";
import { DialogOpened } from "../../../src/grid/page-dialogs.ts";

/** Commands the endpoint holds unanswered, by method: their ids. */
const holding = new Map<string, number[]>();
let peer: ServerWebSocket<unknown> | null = null;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (req, srv) => (srv.upgrade(req) ? undefined : new Response("no", { status: 400 })),
  websocket: {
    open(ws) {
      peer = ws;
    },
    message(ws, data) {
      const msg = JSON.parse(String(data)) as { id: number; method: string };
      if (msg.method === "input.performActions" || msg.method === "browsingContext.locateNodes") {
        holding.set(msg.method, [...(holding.get(msg.method) ?? []), msg.id]);
        return;
      }
      ws.send(JSON.stringify({ id: msg.id, type: "success", result: { contexts: [] } }));
    },
  },
});
afterAll(() => server.stop(true));

const emit = (method: string, params: Record<string, unknown>) =>
  peer?.send(JSON.stringify({ type: "event", method, params }));
const answer = (method: string) => {
  for (const id of holding.get(method) ?? []) peer?.send(JSON.stringify({ id, type: "success", result: {} }));
  holding.delete(method);
};
const alert = (context: string) => ({ context, type: "alert", message: "hi", handler: "ignore" });

async function page(frame: string | null = null) {
  holding.clear();
  const socket = await BidiSocket.connect(`ws://127.0.0.1:${server.port}/`);
  const held = new HeldConnection(socket, () => {}, 60_000);
  held.activeTab = "T";
  const opts = { pageLoadMs: 1000, scriptMs: 1000, gone: async () => false };
  return { socket, page: new Page(held, { tab: "T", frame }, opts) };
}

const press = (p: Page, context = "T") =>
  p.perform(context, [{ type: "key", id: "keyboard", actions: [{ type: "keyDown", value: "a" }] }]);

const settled = (p: Promise<unknown>) =>
  Promise.race([
    p.then(
      () => "answered",
      (e) => e,
    ),
    Bun.sleep(300).then(() => "waiting"),
  ]);

test("a dialog that opens in the tab ends the press waiting there with DialogOpened, at once", async () => {
  const { socket, page: p } = await page();
  const pressing = press(p);
  await Bun.sleep(50);
  expect(holding.get("input.performActions")).toHaveLength(1);
  emit("browsingContext.userPromptOpened", alert("T"));
  const err = await settled(pressing);
  expect(err).toBeInstanceOf(DialogOpened);
  expect((err as DialogOpened).prompt.message).toBe("hi");
  // Its late answer finds nothing waiting; while the dialog is open, a command that asks is not sent.
  answer("input.performActions");
  const actions = { context: "T", actions: [] };
  const again = p.send("input.performActions", actions, { endsOnDialog: true });
  expect(await settled(again)).toBeInstanceOf(DialogOpened);
  await Bun.sleep(50);
  expect(holding.get("input.performActions")).toBeUndefined();
  socket.close();
});

test("a dialog of one of the tab's frames ends it too, or one of the agent's frame", async () => {
  const { socket, page: p } = await page();
  emit("browsingContext.contextCreated", { context: "F", parent: "T", url: "about:blank", children: null });
  const pressing = press(p, "F");
  await Bun.sleep(50);
  emit("browsingContext.userPromptOpened", alert("F"));
  expect(await settled(pressing)).toBeInstanceOf(DialogOpened);
  socket.close();
  // The agent in a frame whose way up to the tab is not known whole: the frame's own dialog ends it.
  const inFrame = await page("F2");
  emit("browsingContext.contextCreated", { context: "F2", parent: "F1", url: "about:blank", children: null });
  const there = press(inFrame.page, "F2");
  await Bun.sleep(50);
  emit("browsingContext.userPromptOpened", alert("F2"));
  expect(await settled(there)).toBeInstanceOf(DialogOpened);
  inFrame.socket.close();
});

test("a dialog of another tab, or a command that did not ask, is not ended: it answers when answered", async () => {
  const { socket, page: p } = await page();
  const pressing = press(p);
  const locating = p.send("browsingContext.locateNodes", {
    context: "T",
    locator: { type: "css", value: "a" },
  });
  await Bun.sleep(50);
  emit("browsingContext.userPromptOpened", alert("OTHER"));
  expect(await settled(pressing)).toBe("waiting");
  answer("input.performActions");
  expect(await settled(pressing)).toBe("answered");
  emit("browsingContext.userPromptOpened", alert("T"));
  expect(await settled(locating)).toBe("waiting");
  answer("browsingContext.locateNodes");
  expect(await settled(locating)).toBe("answered");
  socket.close();
});
