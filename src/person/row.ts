// The person part of the admin's workspace row: waiting {question, since} while its agent waits.
import type { RowContext } from "../admin/rows.ts";
import { waitingIn } from "./waits.ts";

export const personPart = ({ record }: RowContext) => ({ waiting: waitingIn(record) });
