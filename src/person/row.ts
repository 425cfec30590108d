// The person part of the admin's workspace row: waiting {question, since} while its agent waits,
// taken_over {by, since, until} while a person drives the browser, and the secrets a person gave it.
import type { RowContext } from "../admin/rows.ts";
import { takenOverIn } from "../workspaces/taken-over.ts";
import type { PersonNeeds } from "./admin.ts";
import { waitingIn } from "./waits.ts";

export const personPart = ({ record, services }: RowContext<PersonNeeds>) => ({
  waiting: waitingIn(record),
  taken_over: takenOverIn(record, Date.now() / 1000),
  /** The secrets a person gave this workspace (request_secret): names, keys and hosts, never a value. */
  secrets: services.personSecrets.list(record),
});
