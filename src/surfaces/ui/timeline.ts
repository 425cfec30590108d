// The Timeline tab's own fragments: the entries newer than what the page shows (pushed while the
// agent works), older ones below, and Save as flow over the ticked range.

import { bodyParser } from "../../http/body.ts";
import type { ListedEntry } from "../../timeline/entry.ts";
import { timelineTab } from "../../timeline/index.ts";
import { timelineCounts } from "../../timeline/row.ts";
import { Entries, Newer, OlderFailed, SavedAsFlow } from "../../timeline/view.tsx";
import { ErrorNotice, render } from "../../views/parts.tsx";
import type { PaneCtx, UiKit } from "./kit.ts";
import type { Answer } from "./operations.ts";
import { paneAfter, renderPane } from "./panes.ts";
import { fragment } from "./respond.ts";
import { paneRev } from "./workspace.tsx";

/** The Save as flow form's route, and its largest body: a name and the ticked entries. */
export const KEEP_AS_FLOW = "/ui/workspaces/:key/panes/timeline/flow";
const FORM_CAP = 64 * 1024;
/** KEEP_AS_FLOW's body: the form, read before the handler checks the credential (FORM_CAP bounds it). */
export const keepAsFlowBody = bodyParser({
  kinds: ["form"],
  caps: { form: { bytes: FORM_CAP, what: "form" } },
  wrongType: "send the form as application/x-www-form-urlencoded",
});
/** The most entries a push loads onto the Timeline's top; further behind, the pane loads again. */
const NEWER_MAX = 50;

/** The Timeline pane's handlers in the UI (its JSON routes are src/timeline/routes.ts). */
export function timelinePaneRoutes(kit: UiKit) {
  const { services } = kit;

  /** The Timeline's entries after what the page shows (`after`), or the whole pane when that cannot be said. */
  const newer = kit.fragmentRoute(async (ctx: PaneCtx, admin) => {
    const key = ctx.params.key;
    const whole = async () => {
      const out = await paneAfter(services, ctx, admin, timelineTab, null);
      return fragment(await out.text(), out.status, {
        "hx-retarget": "#paneTimeline",
        "hx-reswap": "innerHTML",
      });
    };
    const row = await admin.row(key);
    if (!row.ok) return whole();
    const r = row.body;
    const { total, last } = timelineCounts(r);
    const after = /^\d{1,15}$/.test(ctx.query.after ?? "") ? Number(ctx.query.after) : 0;
    // A page that shows none yet, a timeline cleared since, or a long way behind: all of it again.
    if (after < 1 || after > last || last - after > NEWER_MAX) return whole();
    let entries: ListedEntry[] = [];
    if (last > after) {
      const got = await admin.timeline(key, null, String(last - after));
      if (!got.ok) return whole();
      entries = got.body.entries.filter((e) => e.n > after);
    }
    const rev = paneRev(r, timelineTab);
    return fragment(render(Newer({ workspace: key, entries, rev, total, last })));
  });

  /** Older entries of the Timeline, below what the page shows. */
  const older = kit.fragmentRoute(async (ctx: PaneCtx, admin) => {
    const key = ctx.params.key;
    const before = /^\d{1,15}$/.test(ctx.query.before ?? "") ? (ctx.query.before ?? "") : "";
    const got = await admin.timeline(key, before, null);
    if (!got.ok) {
      return fragment(render(OlderFailed({ error: got.error })), got.status);
    }
    return fragment(render(Entries({ workspace: key, data: got.body })));
  });

  /** Save as flow: the ticked entries' range (the oldest to the newest) kept as the flow `name`. */
  const keepAsFlow = kit.formRoute(async (ctx: PaneCtx, admin) => {
    const key = ctx.params.key;
    // Its route read the form (keepAsFlowBody: at most FORM_CAP bytes, before the credential check).
    const form = ctx.body instanceof URLSearchParams ? ctx.body : new URLSearchParams();
    const ticked = form
      .getAll("entry")
      .filter((v) => /^\d{1,15}$/.test(v))
      .map(Number);
    let outcome: Answer;
    if (ticked.length === 0) {
      outcome = {
        ok: false,
        status: 400,
        body: null,
        error: "tick the first and the last entry of the run to keep, then Save as flow",
      };
    } else {
      outcome = await admin.keepRun(key, {
        name: (form.get("name") ?? "").trim(),
        from: Math.min(...ticked),
        to: Math.max(...ticked),
      });
    }
    const out = await renderPane(services, admin, key, timelineTab, null);
    const saved = outcome.body as { name?: unknown } | null;
    const notice = render(
      outcome.ok
        ? SavedAsFlow({ workspace: key, name: String(saved?.name ?? "") })
        : ErrorNotice({ error: outcome.error }),
    );
    return fragment(notice + out.html, outcome.ok ? out.status : outcome.status);
  });

  return { newer, older, keepAsFlow };
}
