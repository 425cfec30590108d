// One timeline entry: a call on a workspace as it happened (spec issue 16). The shape is declared
// once here; the disk and store logs, the admin API and the views all read it from this schema.
import { z } from "zod";

export const Surface = z.enum(["mcp", "rest", "flow", "person"]);
export type Surface = z.infer<typeof Surface>;

export const TimelineEntry = z.object({
  /** Counts from 1 per workspace; the `before` cursor pages on it. */
  n: z.number().int().positive(),
  /** Epoch seconds when the call began. */
  time: z.number(),
  surface: Surface,
  tool: z.string(),
  /** What the caller passed, as given: a secret stays a reference ({name, key}), never its value. */
  args: z.record(z.string(), z.unknown()),
  /** true when the arguments were cut to fit (a big upload): the entry cannot become a step. */
  args_cut: z.boolean().optional(),
  /** The HTTP status the call answered with (200, or its error's). */
  status: z.number().int(),
  ms: z.number().int().nonnegative(),
  error: z.string().optional(),
  /** Where the page was after the call ([hidden] where a typed secret would show). */
  url: z.string().optional(),
  title: z.string().optional(),
  /** A flow step that said `return: true`. */
  return: z.boolean().optional(),
  /** The flow a step ran in. */
  flow: z.string().optional(),
  /** Whether a screen (a JPEG of the viewport after the call) is kept with it. */
  screen: z.boolean().optional(),
});
export type TimelineEntry = z.infer<typeof TimelineEntry>;

/** What a caller hands the log; it numbers the entry. */
export type NewEntry = Omit<TimelineEntry, "n">;

/** The most an entry's arguments may weigh as JSON; past it, long strings are cut. */
export const ARGS_CAP = 64 * 1024;
const CUT_STRING = 256;

/**
 * `args` as JSON-safe data within ARGS_CAP: bytes and other objects that are not plain data read as
 * a placeholder, and when the whole is still too big every long string is cut (`cut` says so).
 */
export function keptArgs(args: unknown): { args: Record<string, unknown>; cut: boolean } {
  const plain = (v: unknown, depth: number, cutAt: number | null): unknown => {
    if (typeof v === "string") return cutAt !== null && v.length > cutAt ? `${v.slice(0, cutAt)}…` : v;
    if (typeof v === "number" || typeof v === "boolean" || v === null) return v;
    if (depth > 20) return "[…]";
    if (Array.isArray(v)) return v.slice(0, 1000).map((x) => plain(x, depth + 1, cutAt));
    if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = plain(x, depth + 1, cutAt);
      return out;
    }
    return v === undefined ? null : "[bytes]";
  };
  const root = (cutAt: number | null) => {
    const got = plain(args, 0, cutAt);
    return typeof got === "object" && got !== null && !Array.isArray(got)
      ? (got as Record<string, unknown>)
      : {};
  };
  const whole = root(null);
  if (JSON.stringify(whole).length <= ARGS_CAP) return { args: whole, cut: false };
  return { args: root(CUT_STRING), cut: true };
}
