// A bound write waits for every screen in flight (a live one and a timeline one may be drawn at
// once) before its value goes in.
import { expect, test } from "bun:test";
import { HeldConnection } from "../../../src/grid/held.ts";
import { FakeSocket } from "../../support/fake-socket.ts";

test("a write waits for both screens in flight, the slower one first-begun", async () => {
  const held = new HeldConnection(new FakeSocket().socket, () => {}, 60_000);
  let slowDone = false;
  void held.drawn(Bun.sleep(60).then(() => (slowDone = true)));
  void held.drawn(Bun.sleep(5));
  const release = await held.holdScreens();
  expect(slowDone).toBe(true);
  expect(held.writing).toBe(true);
  release();
  expect(held.writing).toBe(false);
  expect(held.screens).toEqual({ drawn: 2, midWrite: 0 });
});
