// Moving the page: to a URL, back, forward, or a reload.
import { z } from "zod";
import { defineAction, flag, PageResult, webUrl } from "./define.ts";

export const navigate = defineAction({
  name: "navigate",
  http: { method: "POST", path: "/browser/navigate" },
  title: "Navigate",
  description: [
    "Go to a url, or go back, forward or reload — exactly one of the four.",
    "It waits for the page to load and returns its final url and title (after redirects).",
    "Use read_page next to see what is on the page; do not guess selectors.",
  ].join(" "),
  input: z
    .strictObject({
      url: webUrl().optional().describe("An absolute URL to go to."),
      back: flag().optional().describe("Go back one page."),
      forward: flag().optional().describe("Go forward one page."),
      reload: flag().optional().describe("Reload the page."),
    })
    .refine(
      (i) => [i.url !== undefined, i.back, i.forward, i.reload].filter(Boolean).length === 1,
      "give exactly one of url, back: true, forward: true or reload: true",
    ),
  output: PageResult,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  browser: "page",
  handler: async (ctx, input) => {
    const page = await ctx.browser.page();
    if (input.url !== undefined) await page.goto(input.url);
    else if (input.back) await page.history(-1);
    else if (input.forward) await page.history(1);
    else await page.reload();
    return page.state();
  },
});
