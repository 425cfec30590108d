// The live view's looks as a test counts them, watched from outside (`LiveScreens.frame`, which its
// loop calls for each look), so the live view keeps no counter only tests read.
import type { LiveScreens } from "../../src/timeline/screens.ts";

export interface Looks {
  /** Pictures taken so far. */
  readonly taken: number;
  /** Looks under way now: once nobody watches and none is, the loop has ended. */
  readonly under: number;
}

/** Counts `live`'s looks from now on. */
export function countLooks(live: LiveScreens): Looks {
  const look = live.frame.bind(live);
  const count = { taken: 0, under: 0 };
  live.frame = async (workspace) => {
    count.under++;
    try {
      const frame = await look(workspace);
      if ("jpeg" in frame) count.taken++;
      return frame;
    } finally {
      count.under--;
    }
  };
  return count;
}
