// Where a failed call left the page, for its timeline entry: the tab's url from the tree and its
// title from the sandbox, redacted with the rest of the entry; a tab held by a dialog runs no script,
// so its title is not asked for (the ask would hold every failed call meanwhile for the title's
// whole timeout).
import { expect, test } from "bun:test";
import type { AnyAction, LiveBrowser } from "../../../src/actions/action.ts";
import { defaultConfig } from "../../../src/config/schema.ts";
import { badInput } from "../../../src/errors.ts";
import { ACTIONS } from "../../../src/registry.ts";
import { emptyRecord } from "../../../src/store/record.ts";
import { SqliteStore } from "../../../src/store/sqlite.ts";
import { MemoryLog } from "../../../src/timeline/log.ts";
import { pageOf } from "../../../src/timeline/page-after.ts";
import { browserlessTimeline } from "../../support/timeline.ts";

function browser(prompted: boolean) {
  const sent: string[] = [];
  const socket = {
    send: async (method: string) => {
      sent.push(method);
      if (method === "browsingContext.getTree")
        return { contexts: [{ context: "tab", url: "https://shop.example.test/cart?k=Summer2026" }] };
      // A script in a tab held by a dialog is never answered; here it answers only where none is.
      if (prompted) return new Promise(() => {});
      return { type: "success", result: { type: "string", value: "Cart Summer2026" } };
    },
  };
  const page = {
    where: { tab: "tab", frame: null },
    held: { socket, prompts: new Map(prompted ? [["tab", { type: "alert", message: "hi" }]] : []) },
  };
  return { sent, live: { page: async () => page } as unknown as LiveBrowser };
}

test("a failed call's page: the url and the title", async () => {
  const { sent, live } = browser(false);
  expect(await pageOf(live)).toEqual({
    url: "https://shop.example.test/cart?k=Summer2026",
    title: "Cart Summer2026",
  });
  expect(sent.sort()).toEqual(["browsingContext.getTree", "script.callFunction"]);
});

test("a tab held by a dialog: the url, an empty title, and no script asked for", async () => {
  const { sent, live } = browser(true);
  expect(await pageOf(live)).toEqual({ url: "https://shop.example.test/cart?k=Summer2026", title: "" });
  expect(sent).toEqual(["browsingContext.getTree"]);
});

test("a failed call's entry says where it left the page, redacted with its arguments and error", async () => {
  const config = defaultConfig();
  config.secrets.entries = { shop: { keys: { v: { value: "Summer2026" } } } };
  const store = new SqliteStore();
  await store.set("w", emptyRecord());
  const log = new MemoryLog(10);
  const t = browserlessTimeline({ config, log, store });
  const navigate = ACTIONS.find((a) => a.name === "navigate") as AnyAction;
  const error = badInput("no Summer2026 here");
  const { live } = browser(false);
  await t.ended({
    surface: "rest",
    workspace: "w",
    action: navigate,
    args: { url: "https://shop.example.test/?k=Summer2026" },
    time: 1000,
    ms: 1,
    ended: { ok: false, error },
    browser: live,
  });
  expect(await t.all("w")).toMatchObject([
    {
      args: { url: "https://shop.example.test/?k=[hidden]" },
      status: 400,
      error: "no [hidden] here",
      url: "https://shop.example.test/cart?k=[hidden]",
      title: "Cart [hidden]",
    },
  ]);
});
