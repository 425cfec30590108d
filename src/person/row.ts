// The person part of the admin's workspace row: waiting {question, since} while its agent waits.
import type { RowContext } from "../admin/rows.ts";
import { waitingOn } from "./waits.ts";

export const personPart = ({ key }: RowContext) => ({ waiting: waitingOn(key) });
