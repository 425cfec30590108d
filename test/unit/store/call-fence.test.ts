// Fences are the call's own, not looked up by workspace name: an admin's End while a call is still
// opening its browser, then a new call, and the stopped call's browser is quit when it arrives; the
// new call's browser stays the workspace's and nothing is orphaned on the Grid.
import { beforeEach, expect, test } from "bun:test";
import { validate } from "../../../src/actions/validate.ts";
import type { OpenOptions } from "../../../src/grid/webdriver-caps.ts";
import { openStore, type RecordStore } from "../../../src/store/index.ts";
import { goAction as navigate } from "../../support/actions.ts";
import { runCall } from "../../support/calls.ts";
import { FakeGrid } from "../../support/fake-grid.ts";
import { testServices } from "../../support/services.ts";

const W = "w";
let store: RecordStore;
let fake: FakeGrid;

beforeEach(async () => {
  store = await openStore({ ttl: 86_400 });
  fake = new FakeGrid();
});

test("a call stopped by End while its browser opens never binds it, and the next call's browser is not orphaned", async () => {
  const m = testServices({ store, grid: fake.grid, hooks: {}, lease: { lease: 15, wait: 60 } }).workspaces;
  const open = fake.open.bind(fake);
  let letFirstIn: () => void = () => {};
  const firstHeld = new Promise<void>((resolve) => {
    letFirstIn = resolve;
  });
  let opens = 0;
  let firstStarted: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    firstStarted = resolve;
  });
  fake.open = async (o: OpenOptions) => {
    // The first browser takes its time: End and the next call happen meanwhile.
    if (++opens === 1) {
      firstStarted();
      await firstHeld;
    }
    return open(o);
  };
  const go = (url: string) => runCall(m, W, navigate, validate(navigate.input, { url }));
  const first = go("https://app.example.test/one").catch((e: unknown) => e);
  await started;
  await m.interrupt(W);
  await go("https://app.example.test/two");
  const second = (await store.get(W))?.session_id;
  expect(second).toBeTruthy();
  letFirstIn();
  const err = await first;
  expect(err).toBeInstanceOf(Error);
  // The stopped call drove nothing: no page of its URL in any browser.
  expect(fake.log.filter((l) => l.includes("/one"))).toEqual([]);
  // The workspace still names the second call's browser; every other browser is quit.
  expect((await store.get(W))?.session_id).toBe(second);
  const live = [...fake.browsers.entries()].filter(([, b]) => b.alive).map(([id]) => id);
  expect(live).toEqual([second as string]);
});
