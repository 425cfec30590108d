import { z } from "zod";
import { defineResource } from "../actions/resource.ts";
import type { WorkspaceManager } from "../workspaces/manager.ts";

export const Current = z.object({
  live: z.boolean().describe("Whether the workspace has a browser on the Grid now."),
  url: z
    .string()
    .nullable()
    .describe("The last page, where a new browser goes; null when it has been nowhere."),
  title: z.string().optional().describe("The page's title (only when live)."),
  settings: z.record(z.string(), z.unknown()).describe("What the browser was opened with."),
  recording: z.boolean().describe("Whether the browser this workspace holds is being recorded."),
  site_data: z
    .object({ sites: z.number().int(), uri: z.string() })
    .optional()
    .describe("How many sites the last save_site_data holds, and where to read them."),
});

export const current = defineResource<{ readonly workspaces: Pick<WorkspaceManager, "describe"> }>({
  uri: "workspace://current",
  name: "current",
  title: "This workspace",
  description:
    "This workspace now: live (whether it has a browser), url (its last page), title (when live), settings, recording, and a summary of its saved site data. Reading it never opens a browser.",
  http: "/browser",
  output: Current,
  read: (services, workspace) => services.workspaces.describe(workspace),
});
