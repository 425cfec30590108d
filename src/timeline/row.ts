// The timeline fields of the admin's workspace row: counts.timeline (entries), counts.screens and
// timeline_rev, which moves with every entry, so the Timeline tab follows the agent as it works.
import type { RowContext } from "../admin/rows.ts";
import type { TimelineNeeds } from "./routes.ts";

export const timelinePart = async ({ services, key }: RowContext<TimelineNeeds>) => {
  const s = await services.timeline.summary(key);
  return {
    counts: { timeline: s.entries, screens: s.screens },
    timeline_rev: `${s.last}.${s.entries}.${s.screens}`,
    timeline_last: s.last,
  };
};

/** The timeline's place in a row: how many entries, and the newest one's n. */
export const timelineCounts = (
  row: Pick<Awaited<ReturnType<typeof timelinePart>>, "counts" | "timeline_last">,
) => ({
  total: row.counts.timeline,
  last: row.timeline_last,
});
