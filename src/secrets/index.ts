// The secrets capability as the registry lists it: the catalogue's resource (names and where each
// may be typed, never a value). Its page is the UI surface's (Secrets); a bound write is the
// browser's `write`.
import { capability } from "../admin/capability.ts";
import type { SecretCatalogue } from "./catalogue.ts";
import type { Redactor } from "./redactor.ts";
import { secrets as secretList } from "./resources.ts";

export const secrets = capability({ name: "secrets", resources: [secretList] });

// What a handler gets of this capability.
declare module "../actions/ports.ts" {
  interface ActionServices {
    /** The secrets agents may type without seeing them. */
    readonly secrets: SecretCatalogue;
    /** The one redactor (what leaves the server), and what was typed in each browser. */
    readonly redactor: Redactor;
  }
}
