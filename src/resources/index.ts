// What a workspace shows of itself and the agent guide, as the registry lists them: the resources
// that belong to no capability (`workspace://current`, the guide's pages).
import { capability } from "../admin/capability.ts";
import { current } from "./current.ts";
import { guideResources } from "./skill.ts";

export const workspace = capability({ name: "workspace", resources: [current, ...guideResources()] });
