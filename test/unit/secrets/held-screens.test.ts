// A bound write waits for every screen in flight (a live one and a timeline one may be drawn at
// once) before its value goes in; a browser's end forgets what was typed in it.
import { expect, test } from "bun:test";
import { defaultConfig } from "../../../src/config/schema.ts";
import { HeldConnection } from "../../../src/grid/held.ts";
import { HeldConnections } from "../../../src/grid/held-pool.ts";
import { SecretCatalogue } from "../../../src/secrets/catalogue.ts";
import { Redactor } from "../../../src/secrets/redactor.ts";
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

test("a browser dropped forgets the origins and values typed in it", async () => {
  const redactor = new Redactor(new SecretCatalogue(defaultConfig().secrets));
  const conns = new HeldConnections(
    async () => new FakeSocket().socket,
    60_000,
    [],
    100,
    (id) => redactor.forgetBrowser(id),
  );
  redactor.noteTyped("gone-browser", "w", "Secret-Value-1", "https://a.example.test");
  expect(redactor.typedOrigins("gone-browser")).toEqual(["https://a.example.test"]);
  expect(redactor.typedIn("gone-browser")).toBe(true);
  conns.drop("gone-browser");
  expect(redactor.typedOrigins("gone-browser")).toEqual([]);
  expect(redactor.typedIn("gone-browser")).toBe(false);
});
