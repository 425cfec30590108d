// One timeline entry: a call on a workspace as it happened (spec issue 16). The shape is declared
// once here; the disk and store logs, the admin API and the views all read it from this schema.
import { z } from "zod";
import { Surface } from "../actions/call.ts";
import { isObject } from "../kit/json.ts";

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
  /**
   * The selectors a call that worked named by ref, each with a durable locator for its element,
   * read in the page as the call resolved it (null: none could be read): a kept flow names the
   * element by it (flow.ts).
   */
  locators: z
    .array(
      z.object({
        selector: z.record(z.string(), z.unknown()),
        locator: z.record(z.string(), z.string()).nullable(),
      }),
    )
    .optional(),
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

/** An entry as the admin's timeline lists it: with the path of its screen when it has one. */
export const ListedEntry = TimelineEntry.extend({ screen_url: z.string().optional() });
export type ListedEntry = z.infer<typeof ListedEntry>;

/** One batch of the listing, newest first; `next` is the `before` cursor of the batch after it. */
export const TimelineBatch = z.object({ entries: z.array(ListedEntry), next: z.number().int().nullable() });
export type TimelineBatch = z.infer<typeof TimelineBatch>;

/** What a caller hands the log; it numbers the entry. */
export type NewEntry = Omit<TimelineEntry, "n">;

/** The most an entry may weigh as JSON, once cut: a 65,000-key body is not a megabyte of timeline. */
export const ENTRY_CAP = 16 * 1024;
/** The most its arguments may weigh; past it, long strings are cut, then long lists and objects. */
export const ARGS_CAP = 12 * 1024;
const CUT_STRING = 256;
/** Items of a list and keys of an object kept when cutting to size. */
const CUT_ITEMS = 50;
/** The longest error, URL or title an entry keeps (an error is a short summary, not every issue). */
export const TEXT_CAP = 1000;

const cutText = (v: string, at: number) => (v.length > at ? `${v.slice(0, at)}…` : v);

/**
 * `args` as JSON-safe data within ARGS_CAP: bytes and other objects that are not plain data read as
 * a placeholder; when the whole is still too big every long string is cut, then every list and
 * object past CUT_ITEMS, then nothing is kept (`cut` says so). `short` (a call its input validation
 * refused) cuts at once.
 */
export function keptArgs(args: unknown, short = false): { args: Record<string, unknown>; cut: boolean } {
  const plain = (v: unknown, depth: number, cutAt: number | null, items: number): unknown => {
    if (typeof v === "string") return cutAt !== null ? cutText(v, cutAt) : v;
    if (typeof v === "number" || typeof v === "boolean" || v === null) return v;
    if (depth > 20) return "[…]";
    if (Array.isArray(v)) return v.slice(0, items).map((x) => plain(x, depth + 1, cutAt, items));
    if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
      const out: Record<string, unknown> = {};
      let n = 0;
      for (const k in v as Record<string, unknown>) {
        if (!Object.hasOwn(v, k)) continue;
        if (n++ >= items) {
          out["…"] = "more keys not kept";
          break;
        }
        out[cutAt !== null ? cutText(k, cutAt) : k] = plain(
          (v as Record<string, unknown>)[k],
          depth + 1,
          cutAt,
          items,
        );
      }
      return out;
    }
    return v === undefined ? null : "[bytes]";
  };
  const root = (cutAt: number | null, items: number) => {
    const got = plain(args, 0, cutAt, items);
    return isObject(got) ? got : {};
  };
  const fits = (a: Record<string, unknown>) => JSON.stringify(a).length <= ARGS_CAP;
  if (!short) {
    const whole = root(null, 1000);
    if (fits(whole)) return { args: whole, cut: false };
    const strings = root(CUT_STRING, 1000);
    if (fits(strings)) return { args: strings, cut: true };
  }
  const small = root(CUT_STRING, CUT_ITEMS);
  if (fits(small))
    return { args: small, cut: !short || JSON.stringify(small) !== JSON.stringify(root(null, 1000)) };
  return { args: {}, cut: true };
}

/** The entry within ENTRY_CAP: its error, URL and title cut to TEXT_CAP (its args are already cut). */
export function boundedEntry<E extends NewEntry>(entry: E): E {
  const out = { ...entry };
  if (out.error !== undefined) out.error = cutText(out.error, TEXT_CAP);
  if (out.url !== undefined) out.url = cutText(out.url, TEXT_CAP);
  if (out.title !== undefined) out.title = cutText(out.title, TEXT_CAP);
  if (out.tool.length > 200) out.tool = cutText(out.tool, 200);
  if (out.flow !== undefined) out.flow = cutText(out.flow, 200);
  if (JSON.stringify(out).length > ENTRY_CAP) {
    out.args = {};
    out.args_cut = true;
  }
  return out;
}
