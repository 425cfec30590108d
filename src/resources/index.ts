import { siteDataList, siteDataOne } from "../site-data/resources.ts";
import { current } from "./current.ts";
import type { ResourceDef } from "./define.ts";
import { fileResources } from "./files.ts";
import { flowList, flowOne } from "./flows.ts";
import { secrets } from "./secrets.ts";
import { guideResources } from "./skill.ts";

export const RESOURCES: readonly ResourceDef[] = [
  current,
  siteDataList,
  siteDataOne,
  secrets,
  flowList,
  flowOne,
  ...fileResources,
  ...guideResources(),
];
