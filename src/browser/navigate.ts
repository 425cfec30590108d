// Moving the page: to a URL, back, forward, or a reload.
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import { flag, pageFields, webUrl } from "../actions/fields.ts";
import { badInput } from "../errors.ts";
import { dialogField } from "./landing.ts";

export const navigate = defineAction({
  name: "navigate",
  http: { method: "POST", path: "/browser/navigate" },
  title: "Navigate",
  description:
    "Go to a url, or back, forward or reload (exactly one); waits for the load. Returns the final url, title and HTTP status; then read_page, never guess selectors.",
  docs: "The url returned is where the page ended, after redirects; status is the HTTP status of its document (none when it came from the back/forward cache). Done once the document is interactive (back, forward and reload too); loading: true says its load event had not come a few seconds later (a subresource still loading). Only the schemes navigate.allow_schemes lists load (http, https, data and about unless set). A page that opens a dialog as it loads answers with dialog (its message), url and title empty, as a gesture does; while a dialog is open navigate is a 400 naming it: answer it with the dialog tool first.",
  input: z
    .strictObject({
      url: webUrl().optional().meta({ docs: "An absolute URL to go to." }),
      back: flag().optional().meta({ docs: "Go back one page." }),
      forward: flag().optional().meta({ docs: "Go forward one page." }),
      reload: flag().optional().meta({ docs: "Reload the page." }),
    })
    .refine(
      (i) => [i.url !== undefined, i.back, i.forward, i.reload].filter(Boolean).length === 1,
      "give exactly one of url, back: true, forward: true or reload: true",
    ),
  output: z.object({
    ...pageFields,
    status: z.number().int().optional().describe("The document's HTTP status."),
    loading: z.literal(true).optional().describe("Its load event had not come yet."),
    ...dialogField,
  }),
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  browser: "page",
  handler: async (ctx, input) => {
    const page = await ctx.browser.page();
    let loading = false;
    if (input.url !== undefined) ({ loading } = await page.goto(input.url));
    else if (input.back) ({ loading } = await page.history(-1));
    else if (input.forward) ({ loading } = await page.history(1));
    else ({ loading } = await page.reload());
    // The page asks before it is left. The browser may accept that on its own and move on: then
    // the answer is where it went; a prompt still open is the answer itself, never the old page.
    if (page.prompt?.type === "beforeunload") {
      const before = page.held.navigationCount;
      const until = Date.now() + 2_000;
      while (page.prompt && Date.now() < until) await Bun.sleep(25);
      if (!page.prompt) await page.afterGesture(before, true);
    }
    if (page.prompt?.type === "beforeunload") {
      throw badInput(
        "the page asks before it is left (a beforeunload dialog is open): answer it with the dialog tool, accept to leave or dismiss to stay",
      );
    }
    const status = page.status;
    // The page opened a dialog as it loaded (an alert in its script): said as a gesture says one.
    const dialog = page.prompt?.message;
    return {
      ...(dialog !== undefined ? { url: "", title: "", dialog } : await page.state()),
      ...(status !== undefined ? { status } : {}),
      ...(loading ? { loading: true as const } : {}),
    };
  },
});
