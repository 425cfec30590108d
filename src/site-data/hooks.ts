// What site data plugs into the workspace manager: restore on every open and silent reopen, the
// summary for workspace://current.
import { SITE_DATA_URI } from "../actions/fields.ts";
import { messageOf } from "../errors.ts";
import type { ManagerHooks } from "../workspaces/lifecycle.ts";
import { summary } from "./by-host.ts";
import { restore } from "./restore.ts";
import { restorable } from "./snapshot.ts";
import { framesIn } from "./spare-page.ts";
import { restored, watch } from "./touched.ts";

/** `settings` is read at each restore (site_data: its `tabs`). */
export function siteDataHooks(
  now: () => number,
  settings: { tabs?: number } = {},
): Pick<ManagerHooks, "restorable" | "restore" | "siteDataSummary"> {
  return {
    restorable,
    siteDataSummary: summary,
    restore: async (browser, data) => {
      let bidi: Awaited<ReturnType<typeof browser.bidi>>;
      try {
        bidi = await browser.bidi();
      } catch (err) {
        return { restored: [], skipped: [{ reason: messageOf(err) }], uri: SITE_DATA_URI };
      }
      watch(bidi);
      const report = await restore(bidi, data, now(), {
        tabs: settings.tabs,
        frames: framesIn(browser.settings.browser),
        main: async () => (await browser.page()).where.tab,
      });
      // A restore that put everything back is what the next save may build on.
      if (!report.skipped?.length) restored(bidi, Object.keys(data.origins ?? {}));
      return report;
    },
  };
}
