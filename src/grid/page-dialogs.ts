// Dialogs that stop page work (the error a call meets when one opens, or is already open), and a tab
// closed under the call.

import type { BrowsingContext } from "webdriver-bidi-protocol";
import { AppError, badInput } from "../errors.ts";

export const DIALOG_OPEN = "a dialog is open: answer it with the dialog tool first";

/**
 * A dialog opened while the page worked: the page answers nothing more until it is answered. A
 * gesture's own dialog is its result (actions/landing.ts); anywhere else (a read that met one
 * opening as it was sent) it is the 400 an open dialog is.
 */
export class DialogOpened extends AppError {
  constructor(readonly prompt: BrowsingContext.UserPromptOpenedParameters) {
    super(
      "bad_input",
      prompt.message ? `${DIALOG_OPEN} (it says: ${JSON.stringify(prompt.message)})` : DIALOG_OPEN,
    );
    this.name = "DialogOpened";
  }
}

/** A dialog is open in the tab: nothing can run until it is answered. */
export function dialogOpenError(prompt: BrowsingContext.UserPromptOpenedParameters | null): Error {
  return badInput(
    prompt?.message ? `${DIALOG_OPEN} (it says: ${JSON.stringify(prompt.message)})` : DIALOG_OPEN,
  );
}

/** The agent's tab is gone (its page closed it, or another call did): a 400, pick another. */
export class TabClosed extends AppError {
  constructor() {
    super("bad_input", "the current tab was closed: pick another with switch (tab)");
    this.name = "TabClosed";
  }
}
