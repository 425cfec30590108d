// Settling a page call, its rules: the one record write's `fn` for its history, TTL, reopen report,
// window size and every change the action asked for (a result from a browser the record no longer
// names moves nothing), and what a screenshot keeps whole. Pure: the write itself, fenced by the
// call's lease, and the redactor's one pass are the runner's (runner.ts `settle`).

import { PNG } from "../actions/action.ts";
import type { Effects, Fill } from "../actions/effects.ts";
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

type AnyRecord = Record<string, unknown>;

// A screenshot's bytes are left whole (a masked byte run would break the picture): its pixels
// over every field holding a typed secret are blanked when it is taken.
export const picture = (key: string | symbol, parent: object) =>
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

/** The page a call's settle write records for its landing, before the redactor looks (null: none). */
export function landingOf(raw: AnyRecord, effects: Effects): string | null {
  return effects.landed !== undefined ? effects.landed : typeof raw.url === "string" ? raw.url : null;
}

/** What a settle write learnt, from its last run: the reopen report, the fills for the result. */
export interface Told {
  report: SiteDataReport | null;
  fills: Fill[];
}

/** The pages a settle write records, those that carry a secret value already left out. */
export interface Recorded {
  landed: string | null;
  pages: Array<string | null> | undefined;
  elsewhere: string[];
}

/**
 * The settle write's `fn` (a leaf, handed to `store.update`): history, TTL, reopen report, window,
 * the call's changes and focus, for `browser`. The store may run it more than once (Redis retries
 * it): `tell` hears each run, so what the write learnt is its last run's, the one written.
 */
export function settledBy(
  browser: string,
  recorded: Recorded,
  effects: Effects,
  raw: AnyRecord,
  reshapes: boolean,
  clock: { now: number; ttl: number },
  tell: (told: Told) => void,
): (cur: WorkspaceRecord | null) => WorkspaceRecord | null {
  const { landed, pages, elsewhere } = recorded;
  const { now, ttl } = clock;
  return (cur) => {
    tell({ report: null, fills: [] });
    // A result from a browser the record no longer names moves nothing; the write still slides the TTL.
    if (!cur || cur.session_id !== browser) return cur;
    const report = reportFor(cur, browser);
    let next = delivered(at(cur, pages ?? [landed], now, ttl));
    next = joinedBelow(next, elsewhere, now, ttl);
    if (reshapes) next = reshaped(next, raw as { width?: number; height?: number });
    const fills: Fill[] = [];
    for (const change of effects.changes) next = change(next, browser, (f) => fills.push(f)) ?? next;
    if (effects.focus) next = focused(next, browser, effects.focus);
    tell({ report, fills });
    return next;
  };
}
