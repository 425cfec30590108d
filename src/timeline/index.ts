// The timeline capability as the registry lists it: its admin routes, its row part, and the
// Timeline tab (a push loads only its newer entries, not the whole pane).

import { capability, tabsOver } from "../admin/capability.ts";
import { clearTimeline, timelineListing, timelineQuery, timelineRoutes } from "./routes.ts";
import { timelineCounts, timelinePart } from "./row.ts";
import type { Timeline } from "./service.ts";
import { NewerLoader, TimelinePane } from "./view.tsx";

const tab = tabsOver(timelinePart);

/** The Timeline tab: its own UI routes (newer, older, Save as flow) draw it again. */
export const timelineTab = tab({
  slug: "timeline",
  label: "Timeline",
  revFields: ["timeline_rev"],
  reloader: (workspace) => NewerLoader({ workspace }),
  load: (s, k) => timelineListing(s, k, timelineQuery(null, null)),
  render: ({ workspace, data, rev, row }) => TimelinePane({ workspace, data, rev, ...timelineCounts(row) }),
  ops: [
    { method: "DELETE", path: [], run: (s, k) => clearTimeline(s, k, "all") },
    { method: "DELETE", path: ["screens"], run: (s, k) => clearTimeline(s, k, "screens") },
  ],
});

export const timeline = capability({
  name: "timeline",
  adminRoutes: timelineRoutes,
  row: timelinePart,
  tabs: [timelineTab],
});

// What a handler gets of this capability.
declare module "../actions/ports.ts" {
  interface ActionServices {
    /** The last calls as a flow. */
    readonly timeline: Pick<Timeline, "flowYaml">;
  }
}
