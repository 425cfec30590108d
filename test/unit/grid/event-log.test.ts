// The ring's count of requests a page's script sent (fetch, XHR) still under way: a request markup
// asked for (a document, a picture) is not one; one ends with its response, its error, a redirect's
// next step, or its document going; a young-only count leaves out an old one (a long poll).
import { expect, test } from "bun:test";
import { EventRing } from "../../../src/grid/event-log.ts";
import { FakeSocket } from "../../support/fake-socket.ts";

const sent = (id: string, context: string, destination: string, redirectCount = 0) => ({
  context,
  redirectCount,
  timestamp: Date.now(),
  request: { request: id, url: `http://app.example.test/${id}`, method: "GET", destination },
});
const all = () => true;

test("fetch and XHR under way are counted until they end; markup's requests never", () => {
  const fake = new FakeSocket();
  const ring = new EventRing();
  ring.feed(fake.socket);
  fake.emit("network.beforeRequestSent", sent("doc", "tab", "document"));
  fake.emit("network.beforeRequestSent", sent("img", "tab", "image"));
  fake.emit("network.beforeRequestSent", sent("a", "tab", ""));
  fake.emit("network.beforeRequestSent", sent("b", "frame", ""));
  expect(ring.inFlight(all)).toBe(2);
  expect(ring.inFlight((c) => c === "frame")).toBe(1);
  fake.emit("network.responseCompleted", { ...sent("a", "tab", ""), response: { status: 200 } });
  expect(ring.inFlight(all)).toBe(1);
  fake.emit("network.fetchError", { ...sent("b", "frame", ""), errorText: "net::ERR_FAILED" });
  expect(ring.inFlight(all)).toBe(0);
});

test("a redirect's next step, a document that navigated or went, and age end what the browser left open", async () => {
  const fake = new FakeSocket();
  const ring = new EventRing();
  ring.feed(fake.socket);
  fake.emit("network.beforeRequestSent", sent("r", "tab", ""));
  fake.emit("network.beforeRequestSent", sent("r", "tab", "", 1));
  expect(ring.inFlight(all)).toBe(1);
  fake.emit("browsingContext.navigationCommitted", { context: "tab", navigation: "n", url: "x" });
  expect(ring.inFlight(all)).toBe(0);
  fake.emit("network.beforeRequestSent", sent("f", "frame", ""));
  fake.emit("browsingContext.contextDestroyed", { context: "frame" });
  expect(ring.inFlight(all)).toBe(0);
  fake.emit("network.beforeRequestSent", sent("poll", "tab", ""));
  await Bun.sleep(30);
  expect(ring.inFlight(all, 20)).toBe(0);
  expect(ring.inFlight(all)).toBe(1);
});
