// What the Grid's GET /status says (its nodes, their slots, the browser each holds), read for the
// live ids, the free slots, the browsers a server group tagged, and why a new browser did not come.
import { type AppError, badInput, unavailable } from "../errors.ts";
import { OWNER_CAP, type Owner } from "./webdriver-caps.ts";
import { NO_FREE_SLOT } from "./webdriver-errors.ts";

/** A slot in a node of the Grid's /status: what it offers, and the browser it holds, if any. */
interface GridSlot {
  stereotype?: { browserName?: unknown } | null;
  session?: { sessionId?: unknown; capabilities?: Record<string, unknown> | null } | null;
}

/** A node in the Grid's /status. */
export interface GridNode {
  slots?: GridSlot[] | null;
}

/** A browser the Grid holds with a server group's owner tag. */
export interface TaggedBrowser {
  id: string;
  workspace: string;
}

const slotsOf = (nodes: GridNode[]): GridSlot[] => nodes.flatMap((n) => n.slots ?? []);

/** The ids of every browser the nodes hold. */
export function sessionIdsOf(nodes: GridNode[]): Set<string> {
  const ids = new Set<string>();
  for (const slot of slotsOf(nodes)) {
    const id = slot.session?.sessionId;
    if (typeof id === "string") ids.add(id);
  }
  return ids;
}

export function slotCount(nodes: GridNode[]): { total: number; free: number } {
  const all = slotsOf(nodes);
  return { total: all.length, free: all.filter((s) => !s.session).length };
}

/** The browsers tagged as group `group`'s (OWNER_CAP in the capabilities /status lists). */
export function taggedBy(nodes: GridNode[], group: string): TaggedBrowser[] {
  const out: TaggedBrowser[] = [];
  for (const slot of slotsOf(nodes)) {
    const id = slot.session?.sessionId;
    const tag = slot.session?.capabilities?.[OWNER_CAP] as Partial<Owner> | undefined;
    if (typeof id !== "string" || !tag || tag.group !== group || typeof tag.workspace !== "string") continue;
    out.push({ id, workspace: tag.workspace });
  }
  return out;
}

/**
 * Why a new `browser` did not come within `seconds` (grid.open_timeout), from the Grid's /status
 * (null: it did not answer that either). A Grid that does not answer is not a busy one; a Grid with
 * no node of this browser would never serve it (the caller's to change).
 */
export function noBrowserWhy(
  base: string,
  browser: string,
  seconds: number,
  nodes: GridNode[] | null,
): AppError {
  if (!nodes)
    return unavailable(
      `the Grid at ${base} did not answer: no new browser within ${seconds} s (grid.open_timeout), and no answer to GET /status either. Check that the Grid is up and reachable, then retry`,
    );
  const offered = new Set<string>();
  for (const slot of slotsOf(nodes)) {
    const name = slot.stereotype?.browserName;
    if (typeof name === "string") offered.add(name);
  }
  if (offered.size > 0 && !offered.has(browser))
    return badInput(`the Grid has no ${browser} browsers: it offers ${[...offered].sort().join(", ")}`);
  const free = slotsOf(nodes).some((s) => !s.session && s.stereotype?.browserName === browser);
  if (free)
    return unavailable(
      `the Grid at ${base} did not start a browser within ${seconds} s (grid.open_timeout) though it lists a free ${browser} slot: it may be overloaded or stuck; retry after a wait`,
    );
  return unavailable(NO_FREE_SLOT);
}
