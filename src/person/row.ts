// The person part of the admin's workspace row: waiting {question, since} while its agent waits, and
// taken_over {by, since, until} while a person drives the browser.
import type { RowContext } from "../admin/rows.ts";
import { takenOverIn } from "../workspaces/taken-over.ts";
import { waitingIn } from "./waits.ts";

export const personPart = ({ record }: RowContext) => ({
  waiting: waitingIn(record),
  taken_over: takenOverIn(record, Date.now() / 1000),
});
