// Alerts, confirms and prompts: read what the page asks, accept (with an answer) or dismiss.
// Classic WebDriver only: it gives the message but not the kind, so `type` is given when the call
// itself learns it (a prompt took the text).
import { type Alert, error as wd } from "selenium-webdriver";
import { z } from "zod";
import { badInput } from "../errors.ts";
import { pageState } from "../grid/page.ts";
import { hideSecrets } from "../secrets/bound.ts";
import { defineAction, pageFields } from "./define.ts";

const POLL_MS = 100;
export const NO_DIALOG =
  "no dialog is open on this page: dialog handles an alert, confirm or prompt the page has opened. If the action that opens it has not happened yet, do it first, or pass wait (seconds) to wait for one";
export const NOT_A_PROMPT =
  "this dialog has no text box (it is an alert or a confirm): accept it without text, or dismiss it. It is still open";

async function openDialog(
  driver: import("selenium-webdriver").WebDriver,
  waitSeconds: number,
): Promise<Alert> {
  const deadline = performance.now() + waitSeconds * 1000;
  for (;;) {
    try {
      return await driver.switchTo().alert();
    } catch (err) {
      if (!(err instanceof wd.NoSuchAlertError)) throw err;
      if (performance.now() >= deadline) {
        throw badInput(waitSeconds > 0 ? `${NO_DIALOG} (waited ${waitSeconds} s)` : NO_DIALOG, "action");
      }
      await Bun.sleep(POLL_MS);
    }
  }
}

export const dialog = defineAction({
  name: "dialog",
  http: { method: "POST", path: "/browser/dialog" },
  title: "Handle a dialog",
  description: [
    "Handle the alert, confirm or prompt the page has open; while one is open, other actions fail and say so.",
    "read shows its message and leaves it open; accept presses OK (text: a prompt's answer); dismiss presses Cancel.",
    "wait: seconds to wait for one the last action will open. No dialog open is a 400.",
  ].join(" "),
  docs: [
    "Handle it here first. For a prompt accepted without text, the prompt's default is kept.",
    'Returns message, type ("prompt" when text was typed; alert and confirm cannot be told apart), and the page\'s url and title after it closed (both empty while a dialog is still open).',
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
    const clean = (text: string) => hideSecrets(ctx.services.secrets, text);
    const alert = await openDialog(driver, input.wait ?? 0);
    const message = clean(await alert.getText());
    let type: "prompt" | undefined;
    if (input.action === "accept") {
      if (input.text !== undefined) {
        try {
          await alert.sendKeys(input.text);
        } catch (err) {
          if (err instanceof wd.ElementNotInteractableError) throw badInput(NOT_A_PROMPT, "text");
          throw err;
        }
        type = "prompt";
      }
      await alert.accept();
    } else if (input.action === "dismiss") {
      await alert.dismiss();
    }
    const state = await pageState(driver);
    const out: { message: string; type?: "prompt"; next_dialog?: string; url: string; title: string } = {
      message,
      ...state,
    };
    if (type) out.type = type;
    if (!state.url) {
      // The page cannot answer while a dialog is open: record nothing, and say which dialog it is.
      ctx.land(null);
      if (input.action !== "read") {
        const next = await driver
          .switchTo()
          .alert()
          .then((a) => a.getText())
          .catch(() => null);
        if (next !== null) out.next_dialog = clean(next);
      }
    }
    return out;
  },
});
