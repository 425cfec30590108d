// A call as it comes into the call pipeline, and as it ends for who subscribed to it (the activity
// log, the timeline): shapes only, so a surface or a subscriber need not import the pipeline.
import { z } from "zod";
import type { Located } from "../grid/page-found.ts";
import type { AnyAction, Asking, LiveBrowser } from "./action.ts";

type AnyRecord = Record<string, unknown>;

/** Where a call came from: an agent over MCP or REST, a flow's step, a person's input. */
export const Surface = z.enum(["mcp", "rest", "flow", "person"]);
export type Surface = z.infer<typeof Surface>;

export interface Invocation {
  surface: Exclude<Surface, "flow">;
  workspace: string;
  action: AnyAction;
  /** The arguments as the caller sent them (validated here, and kept in the timeline). */
  args: unknown;
  /** The input as its route read it already (a person's): then `args` is only what the timeline keeps. */
  input?: unknown;
  signal?: AbortSignal;
  progress?: (progress: number, total: number | undefined, message: string) => void;
  /** How the client's user is asked (MCP elicitation), when the client can ask them. */
  asking?: Asking;
  /** This server's origin as the caller reached it (the page a person is sent to is there). */
  origin?: string;
  /**
   * A call that needs its workspace there (a person's input): applied when the record its lease
   * reads is none, its refusal (null: go on). A call so refused gives the lease back and is not recorded.
   */
  missing?: () => unknown;
}

/** How a call ended. */
export type Ended = { ok: true; result: AnyRecord } | { ok: false; error: unknown };

/** A call (or a flow's step) as it ends, for its record: still in its turn, handed the browser it leaves. */
export interface CallEnd {
  surface: Surface;
  workspace: string;
  action: AnyAction;
  /** The arguments as the caller sent them. */
  args: unknown;
  /** Epoch seconds when it began. */
  time: number;
  ms: number;
  ended: Ended;
  /** The browser the call leaves (the workspace's, for one that held none); null when none is live. */
  browser: LiveBrowser | null;
  /** The selectors it named by ref, each with its element's durable locator (a kept flow uses them). */
  located?: Located[];
  /** It had its turn, and no browser it leaves is connected here: where the page is goes unasked. */
  unreached?: true;
  /** A flow step's: where it left the page as its run saw it, and the run's flow and `return`. */
  step?: { url: string; title: string; flow?: string; return: boolean };
}

/** The records of the calls a server answered, on their way: a read of what they write waits for them. */
export interface Recording {
  /** Resolves once the record of every call answered so far on this server (on `workspace`) is written. */
  recorded(workspace?: string): Promise<void>;
}

/**
 * Who hears each call, subscribed once when the server is put together (the change bus, the activity
 * log and its metrics, the timeline): the pipeline tells what happened, and knows nothing of them.
 */
export interface Subscriber {
  /** Once, as it subscribes: the records on their way, for its reads to wait for. */
  subscribed?(calls: Recording): void;
  /** The workspace's record or browser changed: a page call settled, a browser opened or ended (after the answer). */
  changed?(workspace: string): void;
  /**
   * A call (or a flow's step) as it ends, still in its turn (a call's after its answer, a refused
   * one's before it), with the browser it leaves. Awaited; never throws.
   */
  ended?(end: CallEnd): void | Promise<void>;
}
