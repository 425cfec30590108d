// Alerts, confirms and prompts: read what the page asks, accept (with an answer) or dismiss. The
// held BiDi connection sees each dialog open (its message and kind); one that opened before this
// server held a connection is read through classic WebDriver.
import { type Alert, error as wd } from "selenium-webdriver";
import type { BrowsingContext } from "webdriver-bidi-protocol";
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import { pageFields } from "../actions/fields.ts";
import { badInput } from "../errors.ts";
import type { Page } from "../grid/page.ts";
import { here } from "./landing.ts";

const POLL_MS = 100;
/** How long a dialog classic WebDriver sees may take to reach the held connection. */
const SEEN_MS = 1_000;
export const NO_DIALOG =
  "no dialog is open on this page: dialog handles an alert, confirm or prompt the page has opened. If the action that opens it has not happened yet, do it first, or pass wait (seconds) to wait for one";
export const NOT_A_PROMPT =
  "this dialog has no text box (it is an alert or a confirm): accept it without text, or dismiss it. It is still open";

type Open = { prompt: BrowsingContext.UserPromptOpenedParameters } | { alert: Alert };

async function openDialog(
  page: Page,
  driver: import("selenium-webdriver").WebDriver,
  waitSeconds: number,
): Promise<Open> {
  const deadline = performance.now() + waitSeconds * 1000;
  for (let first = true; ; first = false) {
    // None in this tab: one open in another (a pop-up's alert holds the tab that opened it).
    const prompt = page.prompt ?? page.held.prompts.values().next().value;
    if (prompt) return { prompt };
    // One the connection did not see open (it opened before this server held it, or its event is
    // on its way: then it is waited for a moment, so the next call is refused naming it).
    if (first) {
      let alert: import("selenium-webdriver").Alert | null = null;
      try {
        alert = await driver.switchTo().alert();
      } catch (err) {
        if (!(err instanceof wd.NoSuchAlertError)) throw err;
      }
      if (alert) {
        const until = performance.now() + SEEN_MS;
        while (!page.prompt && performance.now() < until) await Bun.sleep(POLL_MS);
        return page.prompt ? { prompt: page.prompt } : { alert };
      }
    }
    if (performance.now() >= deadline) {
      throw badInput(waitSeconds > 0 ? `${NO_DIALOG} (waited ${waitSeconds} s)` : NO_DIALOG, "action");
    }
    await Bun.sleep(Math.min(POLL_MS, Math.max(0, deadline - performance.now())));
  }
}

async function answer(page: Page, open: Open, accept: boolean, text: string | undefined): Promise<void> {
  if ("alert" in open) {
    if (text !== undefined) {
      try {
        await open.alert.sendKeys(text);
      } catch (err) {
        if (err instanceof wd.ElementNotInteractableError) throw badInput(NOT_A_PROMPT, "text");
        throw err;
      }
    }
    await (accept ? open.alert.accept() : open.alert.dismiss());
    return;
  }
  if (text !== undefined && open.prompt.type !== "prompt") throw badInput(NOT_A_PROMPT, "text");
  // A prompt accepted without text keeps its default, as a person pressing OK would.
  const userText =
    text ?? (accept && open.prompt.type === "prompt" ? (open.prompt.defaultValue ?? "") : undefined);
  await page.send("browsingContext.handleUserPrompt", {
    context: open.prompt.context,
    accept,
    ...(userText !== undefined ? { userText } : {}),
  });
  // The connection hears it close a moment later; this call knows already.
  page.held.promptAnswered(open.prompt);
}

export const dialog = defineAction({
  name: "dialog",
  http: { method: "POST", path: "/browser/dialog" },
  title: "Handle a dialog",
  description: [
    "Handle the alert, confirm or prompt the page has open (other actions fail while one is).",
    "read shows its message; accept presses OK (text: a prompt's answer); dismiss presses Cancel.",
    "wait: seconds for one about to open.",
  ].join(" "),
  docs: [
    "Handle it here first; with none open in this tab, the one open in another tab is handled (a pop-up's alert holds the tab that opened it). For a prompt accepted without text, the prompt's default is kept.",
    "Returns message, type (alert, confirm or prompt), and the page's url and title after it closed (both empty while a dialog is still open).",
    "wait is for a dialog raised later, e.g. by a timer. text on an alert or confirm is a 400 that leaves the dialog open.",
  ].join(" "),
  input: z
    .strictObject({
      action: z
        .enum(["read", "accept", "dismiss"])
        .meta({ docs: "read: see the message, leave it open. accept: OK. dismiss: Cancel." }),
      text: z
        .string()
        .max(10_000)
        .optional()
        .meta({ docs: "accept only: the answer to type into a prompt." }),
      wait: z
        .number()
        .min(0)
        .max(60)
        .optional()
        .meta({ docs: "Seconds to wait for a dialog to appear (default 0: it must be open now)." }),
    })
    .refine((i) => i.text === undefined || i.action === "accept", {
      message: "text goes with action accept only (it is the answer to a prompt)",
      path: ["text"],
    }),
  output: z.object({
    message: z.string().describe("What the dialog says."),
    type: z.enum(["alert", "confirm", "prompt"]).optional().describe("The kind of dialog, when known."),
    next_dialog: z
      .string()
      .optional()
      .describe("The message of another dialog the page opened straight after; handle it next."),
    ...pageFields,
  }),
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
  browser: "page",
  handler: async (ctx, input) => {
    const { driver } = ctx.browser;
    const page = await ctx.browser.page();
    const open = await openDialog(page, driver, input.wait ?? 0);
    // What it says is redacted where every result is (the settle).
    const message = "alert" in open ? await open.alert.getText() : open.prompt.message;
    let type: "alert" | "confirm" | "prompt" | undefined;
    if ("prompt" in open && open.prompt.type !== "beforeunload") type = open.prompt.type;
    if (input.action !== "read") {
      await answer(page, open, input.action === "accept", input.action === "accept" ? input.text : undefined);
      if (input.text !== undefined) type = "prompt";
    }
    // A dialog still open (this one, read; or the next the page opened) leaves url and title empty.
    const state = input.action === "read" ? { url: "", title: "" } : await here(page, ctx.effects);
    const out: { message: string; type?: typeof type; next_dialog?: string; url: string; title: string } = {
      message,
      url: state.url,
      title: state.title,
    };
    if (type) out.type = type;
    if (!state.url) {
      // The page cannot answer while a dialog is open: record nothing, and say which dialog it is.
      const next = page.prompt;
      if (input.action !== "read" && next) out.next_dialog = next.message;
      ctx.effects.land(null);
    }
    return out;
  },
});
