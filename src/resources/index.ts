import { fileResources } from "../files/resources.ts";
import { flowList, flowOne } from "../flows/resources.ts";
import { secrets } from "../secrets/resources.ts";
import { siteDataList, siteDataOne } from "../site-data/resources.ts";
import { current } from "./current.ts";
import type { ResourceDef } from "./define.ts";
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
