// A spare page's frames as the browser announces them: only a frame whose parent is our tab counts,
// each as soon as its own page is parsed; a frame nested in one of them, or another tab's page at
// the same url, never does.
import { expect, test } from "bun:test";
import { SPARE_PATH } from "../../../src/grid/net-rules.ts";
import { Log } from "../../../src/log.ts";
import { Moves } from "../../../src/site-data/spare-moves.ts";
import { type SpareBidi, spareUrl } from "../../../src/site-data/spare-page.ts";

const A = "https://a.example.test";
const B = "https://b.example.test";
const C = "https://c.example.test";

/** A socket that only keeps listeners, and lets the test fire events as the browser would. */
function events() {
  const listeners: Array<{ event: string; context: string | null; fn: (p: unknown) => unknown }> = [];
  const socket = {
    logger: new Log("warn"),
    on: (event: string, context: string | null, fn: (p: unknown) => unknown) => {
      const l = { event, context, fn };
      listeners.push(l);
      return () => {
        listeners.splice(listeners.indexOf(l), 1);
      };
    },
    send: async () => ({}),
    subscribe: async () => "s",
    unsubscribe: async () => undefined,
  } as unknown as SpareBidi;
  const fire = (event: string, context: string, params: Record<string, unknown>) => {
    for (const l of [...listeners])
      if (l.event === event && (l.context === null || l.context === context)) l.fn({ context, ...params });
  };
  return { socket, fire, listeners };
}

const settled = async <T>(p: Promise<T> | undefined) =>
  Promise.race([p, Bun.sleep(5).then(() => "pending" as const)]);

test("a frame counts only as a child of our tab, once its own page is parsed; one nested in it or in another tab never does", async () => {
  const { socket, fire, listeners } = events();
  const url = spareUrl(A, [B, C]);
  const arrival = new Moves(socket, "tab").arrival(url);
  fire("browsingContext.contextCreated", "f1", { parent: "tab", url: "about:blank" });
  fire("browsingContext.contextCreated", "n1", { parent: "f1", url: "about:blank" });
  fire("browsingContext.contextCreated", "other", { parent: null, url: "about:blank" });
  // A page inside our frame, and another tab, at the url a frame of ours wants.
  fire("browsingContext.domContentLoaded", "n1", { url: C + SPARE_PATH });
  fire("browsingContext.domContentLoaded", "other", { url: C + SPARE_PATH });
  expect(await settled(arrival.frames.get(C + SPARE_PATH))).toBe("pending");
  // Our frame's page parsed: taken at once, before the page's load.
  fire("browsingContext.domContentLoaded", "f1", { url: B + SPARE_PATH });
  expect(await settled(arrival.frames.get(B + SPARE_PATH))).toBe("f1");
  // The page loaded without C's frame: it is not coming.
  fire("browsingContext.load", "tab", { url });
  expect(await settled(arrival.frames.get(C + SPARE_PATH))).toBeNull();
  arrival.cancel();
  expect(listeners).toHaveLength(0);
});

test("a page without frames waits for none; a cancelled arrival gives up on every frame", async () => {
  const { socket, listeners } = events();
  const moves = new Moves(socket, "tab");
  expect(moves.arrival(spareUrl(A)).frames.size).toBe(0);
  const arrival = moves.arrival(spareUrl(A, [B]));
  arrival.cancel();
  expect(await settled(arrival.frames.get(B + SPARE_PATH))).toBeNull();
  moves.stop();
  expect(listeners).toHaveLength(0);
});
