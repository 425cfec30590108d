// The timeline capability as the registry lists it: its admin routes, its row part, and the
// Timeline tab (a push loads only its newer entries, not the whole pane).

import { capability, tabsOver } from "../admin/capability.ts";
import { StepTools } from "../flows/tools.ts";
import { timelineFragments } from "./fragments.ts";
import { clearTimeline, timelineListing, timelineQuery, timelineRoutes } from "./routes.ts";
import { timelineCounts, timelinePart } from "./row.ts";
import { Timeline } from "./service.ts";
import { openTimelineLog } from "./setup.ts";
import { NewerLoader, TimelinePane } from "./view.tsx";

const tab = tabsOver(timelinePart);

/** The Timeline tab, and its fragments (newer, older, Save as flow). */
const timelineTab = tab({
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
  fragments: timelineFragments,
});

export const timeline = capability({
  name: "timeline",
  build: (p) => ({
    timeline: new Timeline({
      config: p.config,
      log: openTimelineLog(p.config, p.store, (m) => p.log.warn(m)),
      logger: p.log,
      store: p.store,
      connection: p.connection,
      redactor: p.redactor,
      tools: new StepTools(p.actions),
      now: p.now,
      events: p.events,
    }),
  }),
  adminRoutes: timelineRoutes,
  hears: (s) => s.timeline,
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
