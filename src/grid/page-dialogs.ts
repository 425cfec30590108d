// Dialogs that stop page work: the error a call meets when one opens, or is already open.
import { badInput } from "../errors.ts";
import type { UserPrompt } from "./bidi-types.ts";

/** A dialog opened while the page worked: the page answers nothing more until it is answered. */
export class DialogOpened extends Error {
  constructor(readonly prompt: UserPrompt) {
    super(`a dialog opened: ${prompt.message}`);
    this.name = "DialogOpened";
  }
}

export const DIALOG_OPEN = "a dialog is open: answer it with the dialog tool first";

/** A dialog is open in the tab: nothing can run until it is answered. */
export function dialogOpenError(prompt: UserPrompt | null): Error {
  return badInput(
    prompt?.message ? `${DIALOG_OPEN} (it says: ${JSON.stringify(prompt.message)})` : DIALOG_OPEN,
  );
}
