// The timeline fields of the admin's workspace row: counts.timeline (entries), counts.screens and
// timeline_rev, which moves with every entry, so the Timeline tab follows the agent as it works.
import type { RowPart } from "../admin/rows.ts";

export const timelinePart: RowPart = async ({ services, key }) => {
  const s = await services.timeline.summary(key);
  return {
    counts: { timeline: s.entries, screens: s.screens },
    timeline_rev: `${s.last}.${s.entries}.${s.screens}`,
    timeline_last: s.last,
  };
};
