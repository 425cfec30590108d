// The page port's own reads and failures, on a fake socket: a closed tab is its own error class
// (TabClosed, the 400 it always was), and a person's click is one verb that presses at the point and
// reads where the tab is after it (url and title, empty when they cannot be told).
import { expect, test } from "bun:test";
import { statusOf } from "../../../src/errors.ts";
import { BidiError } from "../../../src/grid/bidi.ts";
import { HeldConnection } from "../../../src/grid/held.ts";
import { Page } from "../../../src/grid/page.ts";
import { TabClosed } from "../../../src/grid/page-dialogs.ts";
import { FakeSocket } from "../../support/fake-socket.ts";

const TAB = "TAB1";
const TREE = { contexts: [{ context: TAB, url: "https://app.example.test/", children: [] }] };

function pageOn(answer: ConstructorParameters<typeof FakeSocket>[0]) {
  const s = new FakeSocket(answer);
  const held = new HeldConnection(s.socket, () => {}, 60_000);
  held.usable.add(TAB);
  held.activeTab = TAB;
  const page = new Page(
    held,
    { tab: TAB, frame: null },
    { pageLoadMs: 1000, scriptMs: 1000, gone: async () => false },
  );
  return { s, page };
}

const SAYS = "the current tab was closed: pick another with switch (tab)";

test("a tab gone from the tree, or a script to a context no tree holds, is TabClosed: a 400 saying so", async () => {
  const empty = pageOn((method) => (method === "browsingContext.getTree" ? { contexts: [] } : {}));
  const err = await empty.page.tree().catch((e) => e);
  expect(err).toBeInstanceOf(TabClosed);
  expect([statusOf(err), err.message]).toEqual([400, SAYS]);
  const gone = pageOn((method) => {
    if (method === "script.callFunction") throw new BidiError("no such frame", "Context OLD not found");
    return { contexts: [] };
  });
  const call = (await gone.page.callIn("OLD", "docTitle").catch((e) => e)) as Error;
  expect(call).toBeInstanceOf(TabClosed);
  expect(call.message).toBe(SAYS);
});

test("a person's click: their own pointer pressed at the point, then the tab's url and title", async () => {
  const { s, page } = pageOn((method) => {
    if (method === "browsingContext.getTree") return TREE;
    if (method === "script.callFunction")
      return { type: "success", result: { type: "string", value: "Home" } };
    return {};
  });
  expect(await page.personClick(10.4, 20.6, { button: 2, count: 2 })).toEqual({
    url: "https://app.example.test/",
    title: "Home",
  });
  const press = s.sent.find((c) => c.method === "input.performActions")?.params;
  expect(press).toEqual({
    context: TAB,
    actions: [
      {
        type: "pointer",
        id: "person-mouse",
        parameters: { pointerType: "mouse" },
        actions: [
          { type: "pointerMove", x: 10, y: 21, origin: "viewport" },
          { type: "pointerDown", button: 2 },
          { type: "pointerUp", button: 2 },
          { type: "pointerDown", button: 2 },
          { type: "pointerUp", button: 2 },
        ],
      },
    ],
  });
});

test("a person's click whose look fails answers an empty place; a failed press is the call's failure", async () => {
  const { page } = pageOn((method) => {
    if (method === "browsingContext.getTree") return TREE;
    if (method === "script.callFunction") throw new BidiError("unknown error", "boom");
    return {};
  });
  expect(await page.personClick(1, 1, {})).toEqual({ url: "", title: "" });
  const refused = pageOn((method) => {
    if (method === "input.performActions") throw new BidiError("invalid argument", "out of bounds");
    return TREE;
  });
  expect(await refused.page.personClick(1, 1, {}).catch((e) => e)).toBeInstanceOf(BidiError);
});
