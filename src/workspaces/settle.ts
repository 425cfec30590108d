// Settling a page call: one record write for its history, TTL, reopen report, window size and
// every change the action asked for, fenced by the call's lease. A result from a browser the
// record no longer names moves nothing.

import { PNG } from "../actions/action.ts";
import type { Effects, Fill } from "../actions/effects.ts";
import type { Redactor } from "../secrets/redactor.ts";
import {
  at,
  delivered,
  focused,
  HISTORY_CAP,
  reportFor,
  reshaped,
  type SiteDataReport,
  stripped,
  type WorkspaceRecord,
} from "../store/record.ts";
import type { LeaseFence, RecordStore } from "../store/types.ts";

type AnyRecord = Record<string, unknown>;

// A screenshot's bytes are left whole (a masked byte run would break the picture): its pixels
// over every field holding a typed secret are blanked when it is taken.
const picture = (key: string | symbol, parent: object) =>
  key === PNG || (key === "data" && (parent as AnyRecord).content_type === "image/png");

/**
 * `urls` in the history below its top entry (the agent's page, where a reopen goes), each replacing
 * its origin's entry, kept as origin + path like every entry below the top.
 */
export function joinedBelow(
  record: WorkspaceRecord,
  urls: readonly string[],
  now: number,
  ttl: number,
): WorkspaceRecord {
  const [top, ...rest] = record.history;
  if (!top || urls.length === 0) return record;
  const added = at({ ...record, history: rest }, urls, now, ttl).history.filter(
    (v) => v.origin !== top.origin,
  );
  const history = [top, ...added.map((v) => ({ ...v, url: stripped(v.url) }))].slice(0, HISTORY_CAP);
  return { ...record, history };
}

export interface Settler {
  store: RecordStore;
  now: () => number;
  /** No result or history shows a secret value. */
  redactor: Redactor;
  /** The call's lease. */
  fence: { fence?: LeaseFence };
}

/**
 * Finishes a page call: one write for history, TTL, reopen report, window, focus and the call's
 * effects; then the result, filled in and redacted: the one door a page call's result leaves by.
 */
export async function settle(
  d: Settler,
  workspace: string,
  raw: AnyRecord,
  browser: string,
  reshapes: boolean,
  effects: Effects,
): Promise<AnyRecord> {
  // The last line of defence for secrets: whatever an action returns or lands on, a page that
  // carries a secret value is never recorded and the value never reaches the caller. One pass of the
  // redactor: the result and every page the write would record.
  const landedRaw =
    effects.landed !== undefined ? effects.landed : typeof raw.url === "string" ? raw.url : null;
  const { value: redacted, carrying } = d.redactor.leaving(
    raw,
    [landedRaw, ...(effects.pages ?? []), ...effects.elsewhere],
    picture,
  );
  const safe = (url: string | null) => (url && carrying.has(url) ? null : url);
  const landed = safe(landedRaw);
  const pages = effects.pages?.map(safe);
  const elsewhere = effects.elsewhere.map(safe).filter((u): u is string => !!u);
  const { focus } = effects;
  const now = d.now();
  // One fenced store write. The store may run fn more than once (Redis retries it): what the write
  // learnt (the reopen report, the fills) is its last run's, the one written.
  let told: { report: SiteDataReport | null; fills: Fill[] } = { report: null, fills: [] };
  await d.store.update(
    workspace,
    (cur) => {
      told = { report: null, fills: [] };
      // A result from a browser the record no longer names moves nothing; the write still slides the TTL.
      if (!cur || cur.session_id !== browser) return cur;
      const report = reportFor(cur, browser);
      let next = delivered(at(cur, pages ?? [landed], now, d.store.ttl));
      next = joinedBelow(next, elsewhere, now, d.store.ttl);
      if (reshapes) next = reshaped(next, raw as { width?: number; height?: number });
      const fills: Fill[] = [];
      for (const change of effects.changes) next = change(next, browser, (f) => fills.push(f)) ?? next;
      if (focus) next = focused(next, browser, focus);
      told = { report, fills };
      return next;
    },
    d.fence,
  );
  // What the write learnt fills in the raw result, in order, which is then redacted whole (a fill
  // says what the write learnt: a receipt).
  const result = told.fills.length
    ? d.redactor.redactDeep(
        told.fills.reduce((r, fill) => fill(r), raw),
        picture,
      )
    : redacted;
  return told.report ? { ...result, site_data: told.report } : result;
}
