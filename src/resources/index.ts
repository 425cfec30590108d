import { current } from "./current.ts";
import type { ResourceDef } from "./define.ts";

export const RESOURCES: readonly ResourceDef[] = [current];
