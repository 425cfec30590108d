// The person part of the admin's workspace row: waiting {question, since} while its agent waits.
import type { RowPart } from "../admin/rows.ts";
import { waitingOn } from "./waits.ts";

export const personPart: RowPart = ({ key }) => ({ waiting: waitingOn(key) });
