// A spare tab's moves: each waited for by the browser's events for the tab (its page parsed, a
// failure, or about:blank committed; each frame of a page with frames parsed), never by asking the page.
import { SANDBOX } from "../grid/bidi.ts";
import { SPARE_PATH } from "../grid/net-rules.ts";
import { callScript } from "../grid/page-call.ts";
import { moveTo } from "../in-page/standalone.ts";
import { framesOf, type SpareBidi } from "./spare-page.ts";

export const HOME = "about:blank";

/** A move of the tab ended: its page parsed (about:blank: committed, all a history needs), or it failed. */
export const MOVED = [
  "browsingContext.domContentLoaded",
  "browsingContext.navigationFailed",
  "browsingContext.navigationCommitted",
] as const;
/** A page's load waits for its frames': a frame not parsed by then is not coming. */
export const LOADED = "browsingContext.load";
/** A frame of the tab is created (its parent named) before its page is parsed. */
export const FRAMED = "browsingContext.contextCreated";

/** A move of the tab the page itself makes (location.replace), followed by its events. */
export interface Arrival {
  url: string;
  done: Promise<void>;
  /**
   * Each frame the page holds, by its url: its context once its page is parsed, or null once the
   * page loaded without it or the arrival was cancelled; never rejects.
   */
  frames: ReadonlyMap<string, Promise<string | null>>;
  cancel(): void;
}

/**
 * Whether an event's `url` is the page a move went to. A spare page may land on another origin (the
 * browser upgraded http to https for a site it knows as secure): that is the move's end too, and the
 * visit's origin check then says where the tab is, rather than the move waiting for a page that never comes.
 */
function samePage(got: string | undefined, want: string): boolean {
  if (got === want) return true;
  if (!got) return false;
  try {
    return new URL(want).pathname === SPARE_PATH && new URL(got).pathname === SPARE_PATH;
  } catch {
    return false;
  }
}

/** The moves of one tab its pages make, each waited for by its events; `stop` ends every wait. */
export class Moves {
  private readonly waiting = new Set<() => void>();

  constructor(
    private readonly bidi: SpareBidi,
    readonly context: string,
    private readonly after: Promise<unknown> = Promise.resolve(),
  ) {}

  /** Waits for the tab's page at `url` to be parsed; in place before the move is asked for. */
  arrival(url: string): Arrival {
    let cancel: () => void = () => undefined;
    const done = new Promise<void>((resolve, reject) => {
      const settle = (fn: () => void) => {
        for (const off of offs) off();
        this.waiting.delete(cancel);
        fn();
      };
      cancel = () => settle(() => reject(new Error("the spare tab stopped")));
      const offs = MOVED.map((event) =>
        this.bidi.on(event, this.context, (p: { url?: string }) => {
          if (!samePage(p?.url, url)) return;
          if (event === "browsingContext.navigationFailed")
            settle(() => reject(new Error("the navigation failed")));
          else if (event === "browsingContext.domContentLoaded" || url === HOME) settle(resolve);
        }),
      );
      this.waiting.add(cancel);
    });
    done.catch(() => undefined);
    const wanted = framesOf(url).map((origin) => origin + SPARE_PATH);
    if (!wanted.length) return { url, done, frames: new Map(), cancel };
    // Each frame is taken as soon as its own page is parsed, not once the whole page has loaded.
    const found = new Map<string, (context: string | null) => void>();
    const frames = new Map(
      wanted.map((w) => [w, new Promise<string | null>((resolve) => found.set(w, resolve))] as const),
    );
    const ours = new Set<string>();
    const give = (w: string, context: string | null) => {
      found.get(w)?.(context);
      found.delete(w);
    };
    const offs = [
      this.bidi.on(FRAMED, null, (p) => {
        if (p?.parent === this.context) ours.add(p.context);
      }),
      this.bidi.on("browsingContext.domContentLoaded", null, (p) => {
        if (p && ours.has(p.context)) give(p.url, p.context);
      }),
      this.bidi.on(LOADED, this.context, (p) => {
        if (samePage(p?.url, url)) unload();
      }),
    ];
    const unload = () => {
      for (const off of offs) off();
      this.waiting.delete(unload);
      for (const w of [...found.keys()]) give(w, null);
    };
    this.waiting.add(unload);
    return {
      url,
      done,
      frames,
      cancel: () => {
        cancel();
        unload();
      },
    };
  }

  /** Moves the tab to `url` by location.replace from its page; `arrival` waits for it there. */
  async move(url: string): Promise<void> {
    await this.after.catch(() => undefined);
    const r = await callScript(this.bidi, {
      functionDeclaration: String(moveTo),
      target: { context: this.context, sandbox: SANDBOX },
      arguments: [{ type: "string", value: url }],
      awaitPromise: false,
    });
    if (r.type !== "success") throw new Error(r.exceptionDetails?.text || "the spare tab could not move");
  }

  /** Moves the tab to `url` and waits for it there. */
  async replace(url: string): Promise<void> {
    const arrival = this.arrival(url);
    try {
      await this.move(url);
    } catch (err) {
      arrival.cancel();
      throw err;
    }
    await arrival.done;
  }

  stop(): void {
    for (const cancel of [...this.waiting]) cancel();
  }
}
