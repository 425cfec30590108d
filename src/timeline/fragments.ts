// The Timeline pane's own fragments in the UI: the entries newer than what the page shows (pushed
// while the agent works), older ones below, and Save as flow over the ticked range. Its JSON routes
// are routes.ts; the UI surface serves these under /ui/workspaces/{key}/panes/timeline/….
import type { Answer } from "../admin/answer.ts";
import type { PaneFragment } from "../admin/capability.ts";
import { ErrorNotice, render } from "../views/parts.tsx";
import type { ListedEntry } from "./entry.ts";
import { keepRunAsFlow, type TimelineNeeds, timelineListing, timelineQuery } from "./routes.ts";
import { timelineCounts, type timelinePart } from "./row.ts";
import { Entries, Newer, OlderFailed, SavedAsFlow } from "./view.tsx";

type Row = Awaited<ReturnType<typeof timelinePart>>;

/** The Save as flow form's largest body: a name and the ticked entries. */
const FORM_CAP = 64 * 1024;
/** The most entries a push loads onto the Timeline's top; further behind, the pane loads again. */
const NEWER_MAX = 50;
const NUMBER = /^\d{1,15}$/;

export const timelineFragments: readonly PaneFragment<Row, TimelineNeeds>[] = [
  {
    // The entries after what the page shows (`after`), or the whole pane when that cannot be said.
    method: "GET",
    path: "newer",
    run: async (services, at) => {
      const row = await at.row();
      if (!row.ok) return { whole: true };
      const { total, last } = timelineCounts(row.body);
      const after = NUMBER.test(at.query.after ?? "") ? Number(at.query.after) : 0;
      // A page that shows none yet, a timeline cleared since, or a long way behind: all of it again.
      if (after < 1 || after > last || last - after > NEWER_MAX) return { whole: true };
      let entries: ListedEntry[] = [];
      if (last > after) {
        const query = timelineQuery(null, String(last - after));
        const got = await at.read((key) => timelineListing(services, key, query));
        if (!got.ok) return { whole: true };
        entries = got.body.entries.filter((e) => e.n > after);
      }
      const rev = at.rev(row.body);
      return { html: render(Newer({ workspace: at.workspace, entries, rev, total, last })) };
    },
  },
  {
    // Older entries, below what the page shows.
    method: "GET",
    path: "older",
    run: async (services, at) => {
      const before = NUMBER.test(at.query.before ?? "") ? (at.query.before ?? "") : "";
      const query = timelineQuery(before, null);
      const got = await at.read((key) => timelineListing(services, key, query));
      if (!got.ok) return { html: render(OlderFailed({ error: got.error })), status: got.status };
      return { html: render(Entries({ workspace: at.workspace, data: got.body })) };
    },
  },
  {
    // Save as flow: the ticked entries' range (the oldest to the newest) kept as the flow `name`.
    method: "POST",
    path: "flow",
    formBytes: FORM_CAP,
    run: async (services, at) => {
      const ticked = at.form
        .getAll("entry")
        .filter((v) => NUMBER.test(v))
        .map(Number);
      const outcome: Answer<{ name?: unknown }> =
        ticked.length === 0
          ? {
              ok: false,
              status: 400,
              body: null,
              error: "tick the first and the last entry of the run to keep, then Save as flow",
            }
          : await at.read((key) =>
              keepRunAsFlow(services, key, {
                name: (at.form.get("name") ?? "").trim(),
                from: Math.min(...ticked),
                to: Math.max(...ticked),
              }),
            );
      const out = await at.pane();
      const notice = render(
        outcome.ok
          ? SavedAsFlow({ workspace: at.workspace, name: String(outcome.body?.name ?? "") })
          : ErrorNotice({ error: outcome.error }),
      );
      return { html: notice + out.html, status: outcome.ok ? out.status : outcome.status };
    },
  },
];
