// /ui/events: the admin's live feed as htmx messages, straight off the event bus. The workspaces
// page gets every card; a workspace's page its own row and its live screen.
import { notFound } from "../../errors.ts";
import { isWorkspaceName } from "../../kit/names.ts";
import { TABS } from "../../registry.ts";
import { frameMessage } from "../../timeline/view.tsx";
import type { FeedEvent } from "../feed.ts";
import type { UiKit } from "./kit.ts";
import type { Row } from "./row.ts";
import { liveMessage } from "./workspace.tsx";
import { cardMessage } from "./workspaces.tsx";

const encoder = new TextEncoder();

// Written as bytes rather than through Elysia's sse(): sse() puts a payload on one `data:` line
// (an HTML fragment spans several) and has no comment line for the heartbeat.
/** One SSE message carrying `html`. */
const sseData = (html: string) =>
  encoder.encode(
    `${html
      .split("\n")
      .map((l) => `data: ${l}`)
      .join("\n")}\n\n`,
  );

/** A feed event as the page's message, or null for one this page does not show. */
async function message(event: FeedEvent, key: string | undefined): Promise<Uint8Array | null> {
  if ("beat" in event) return encoder.encode(": beat\n\n");
  if ("row" in event) {
    const row: Row = event.row;
    if (typeof row.key !== "string") return null;
    const html = key === undefined ? cardMessage(row) : row.key === key ? liveMessage(row, TABS) : null;
    return html ? sseData(html) : null;
  }
  // A page holding a typed secret is not pictured: the last picture stays until it moves on.
  const frame = event.screen;
  if (frame.live) {
    // Read from the JPEG's header: the picture's size, so the page keeps its place between frames.
    const size = await new Bun.Image(frame.jpeg)
      .metadata()
      .then(({ width, height }) => ({ width, height }))
      .catch(() => ({}));
    return sseData(frameMessage({ live: true, jpeg: Buffer.from(frame.jpeg).toString("base64"), ...size }));
  }
  return frame.hidden ? null : sseData(frameMessage({ live: false, jpeg: "" }));
}

async function* pageFeed(kit: UiKit, key: string | undefined, signal: AbortSignal) {
  for await (const event of kit.feeds.events(key ?? null, signal)) {
    const out = await message(event, key);
    if (out) yield out;
  }
}

export function eventsRoute(kit: UiKit) {
  return kit.fragmentRoute((ctx) => {
    const key = ctx.query.workspace;
    if (key !== undefined && !isWorkspaceName(key)) throw notFound(`no workspace ${key}`);
    // Checked here, before the stream: a refusal is an answer, not a stream that ends.
    kit.feeds.room();
    ctx.set.headers["content-type"] = "text/event-stream; charset=utf-8";
    ctx.set.headers["cache-control"] = "no-store";
    return pageFeed(kit, key, ctx.request.signal);
  });
}
