// The secrets capability as the registry lists it: the catalogue's resource (names and where each
// may be typed, never a value). Its page is the UI surface's (Secrets); a bound write is the
// browser's `write`.
import { capability } from "../admin/capability.ts";
import { secrets as secretList } from "./resources.ts";

export const secrets = capability({ name: "secrets", resources: [secretList] });
