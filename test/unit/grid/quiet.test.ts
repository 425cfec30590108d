// A bound write's one hold (grid/quiet.ts): it waits for every screen in flight (a live one and a
// timeline one may be drawn at once) before its value goes in, and while it is held what the field's
// documents log or request is withheld, nothing before it or after it.
import { expect, test } from "bun:test";
import { EventRing } from "../../../src/grid/event-log.ts";
import { HeldConnection } from "../../../src/grid/held.ts";
import { FakeSocket } from "../../support/fake-socket.ts";

test("a write waits for both screens in flight, the slower one first-begun", async () => {
  const held = new HeldConnection(new FakeSocket().socket, () => {}, 60_000);
  let slowDone = false;
  void held.drawn(Bun.sleep(60).then(() => (slowDone = true)));
  void held.drawn(Bun.sleep(5));
  const release = await held.quiet.hold([]);
  expect(slowDone).toBe(true);
  expect(held.writing).toBe(true);
  release();
  expect(held.writing).toBe(false);
  expect(held.quiet.screens).toEqual({ drawn: 2, midWrite: 0 });
});

test("what a held document logs is withheld with its origin; another document's, and what comes after, is not", async () => {
  const fake = new FakeSocket();
  const ring = new EventRing();
  const held = new HeldConnection(fake.socket, () => {}, 60_000, ring);
  const log = (context: string, text: string) =>
    fake.emit("log.entryAdded", { level: "info", text, source: { context, realm: "r" } });
  log("frame", "before");
  const release = await held.quiet.hold([
    { context: "frame", origin: "https://app.example.test" },
    { context: "tab", origin: "https://app.example.test" },
  ]);
  log("frame", "during");
  log("tab", "during, its tab");
  log("other", "during, elsewhere");
  release();
  release();
  log("frame", "after");
  expect(ring.since(0).map((l) => [(l.entry as { text: string }).text, ring.withheld(l)])).toEqual([
    ["before", null],
    ["during", "https://app.example.test"],
    ["during, its tab", "https://app.example.test"],
    ["during, elsewhere", null],
    ["after", null],
  ]);
});
