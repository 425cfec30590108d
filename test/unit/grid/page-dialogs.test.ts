// A dialog met by a read (one opening as the command was sent) is the 400 an open dialog is, never
// a 500; a gesture still tells its own dialog apart (DialogOpened).
import { expect, test } from "bun:test";
import { errorBody, statusOf } from "../../../src/errors.ts";
import { DIALOG_OPEN, DialogOpened } from "../../../src/grid/page-dialogs.ts";

test("DialogOpened is a 400 naming the dialog and what to do", () => {
  const err = new DialogOpened({
    context: "t1",
    type: "confirm",
    message: "saved?",
    handler: "ignore",
  } as never);
  expect(err).toBeInstanceOf(DialogOpened);
  expect(statusOf(err)).toBe(400);
  expect(errorBody(err)).toEqual({ error: `${DIALOG_OPEN} (it says: "saved?")` });
});
