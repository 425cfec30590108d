// workspace://current: what the workspace's browser is, without opening one.
import type { Grid } from "../grid/webdriver.ts";
import type { Redactor } from "../secrets/redactor.ts";
import { type BrowserSettings, recordUrl, type WorkspaceRecord } from "../store/record.ts";
import type { RecordStore } from "../store/types.ts";
import type { Browsers } from "./browsers.ts";
import type { ManagerHooks } from "./lifecycle.ts";

export interface Describe {
  live: boolean;
  url: string | null;
  title?: string;
  settings: BrowserSettings;
  recording: boolean;
  site_data?: { sites: number; uri: string };
}

export interface Describing {
  store: RecordStore;
  grid: Grid;
  browsers: Browsers;
  hooks: ManagerHooks;
  redactor: Redactor;
}

// The title the page shows now ("" when it cannot tell, or a dialog is open).
async function titleOf(browsers: Browsers, record: WorkspaceRecord): Promise<string> {
  const browser = browsers.live(record.session_id, record.settings, record);
  try {
    return (await (await browser.page()).state()).title;
  } catch {
    return "";
  } finally {
    browser.release();
  }
}

/** workspace://current. Never opens a browser. */
export async function describe(d: Describing, workspace: string): Promise<Describe> {
  const record = await d.store.get(workspace);
  const settings = record?.settings ?? {};
  const live = record?.session_id ? await d.grid.alive(record.session_id) : false;
  const out: Describe = {
    live,
    url: record ? recordUrl(record) || null : null,
    settings,
    recording: live && settings.record === true,
  };
  if (live && record) {
    // Shown, not trusted: a title that carries a typed secret reads [hidden], as in results.
    const title = await titleOf(d.browsers, record);
    out.title = d.redactor.redact(title);
  }
  const summary = record ? d.hooks.siteDataSummary?.(record.site_data) : null;
  if (summary) out.site_data = summary;
  return out;
}
