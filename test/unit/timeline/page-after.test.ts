// Where a failed call left the page, for its timeline entry: the tab's url from the tree and its
// title from the sandbox; a tab held by a dialog runs no script, so its title is not asked for (the
// ask would hold every failed call meanwhile for the title's whole timeout).
import { expect, test } from "bun:test";
import type { LiveBrowser } from "../../../src/actions/action.ts";
import { pageOf } from "../../../src/timeline/page-after.ts";

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

const redact = (t: string) => t.replaceAll("Summer2026", "[hidden]");

test("a failed call's page: the url and the title, redacted", async () => {
  const { sent, live } = browser(false);
  expect(await pageOf(live, redact)).toEqual({
    url: "https://shop.example.test/cart?k=[hidden]",
    title: "Cart [hidden]",
  });
  expect(sent.sort()).toEqual(["browsingContext.getTree", "script.callFunction"]);
});

test("a tab held by a dialog: the url, an empty title, and no script asked for", async () => {
  const { sent, live } = browser(true);
  expect(await pageOf(live, redact)).toEqual({ url: "https://shop.example.test/cart?k=[hidden]", title: "" });
  expect(sent).toEqual(["browsingContext.getTree"]);
});
