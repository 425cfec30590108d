// The person capability as the registry lists it: its action (ask_human), its admin routes (answer,
// input) and its row part (the question its agent waits on). It draws no tab: the workspace page
// asks above the tabs.
import { capability } from "../admin/capability.ts";
import { askHuman, requestSecret } from "./actions.ts";
import { personRoutes } from "./admin.ts";
import { personPart } from "./row.ts";
import { secretPageRoutes } from "./secret-page.tsx";
import type { PersonSecrets } from "./secrets.ts";
import { Questions } from "./waits.ts";

export const person = capability({
  name: "person",
  build: ({ store, events }) => ({ questions: new Questions(store, (w) => events.changed(w)) }),
  actions: [askHuman, requestSecret],
  adminRoutes: personRoutes,
  routes: secretPageRoutes,
  row: personPart,
});

// What a handler gets of this capability.
declare module "../actions/ports.ts" {
  interface ActionServices {
    /** The questions agents wait on (ask_human). */
    readonly questions: Pick<Questions, "ask" | "close">;
    /** The secrets a person gives a workspace on the server's page (request_secret, a bound write). */
    readonly personSecrets: Pick<PersonSecrets, "get" | "ask" | "require">;
  }
}
