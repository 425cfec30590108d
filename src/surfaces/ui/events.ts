// /ui/events: the admin's live feed as htmx messages, straight off the event bus. The workspaces
// page gets every card; a workspace's page its own row and its live screen.
import type { Row } from "../../../views/row.ts";
import { liveMessage } from "../../../views/workspace.tsx";
import { cardMessage } from "../../../views/workspaces.tsx";
import { notFound } from "../../errors.ts";
import { isWorkspaceName } from "../../names.ts";
import { TABS } from "../../registry.ts";
import { frameMessage } from "../../timeline/view.tsx";
import { feedRoom, openFeed, streamResponse } from "../feed.ts";
import type { UiKit } from "./kit.ts";

/** One SSE message carrying `html`. */
const sseData = (html: string) =>
  `${html
    .split("\n")
    .map((l) => `data: ${l}`)
    .join("\n")}\n\n`;

export function eventsRoute(kit: UiKit) {
  const { services } = kit;
  return kit.fragmentRoute((ctx) => {
    const key = ctx.query.workspace;
    if (key !== undefined && !isWorkspaceName(key)) throw notFound(`no workspace ${key}`);
    feedRoom(services);
    // `message` renders a row, or null to skip it.
    const message =
      key === undefined ? cardMessage : (row: Row) => (row.key === key ? liveMessage(row, TABS) : null);
    return streamResponse(
      ctx.request,
      (write) =>
        openFeed(services, key ?? null, {
          row: (row) => {
            const html = typeof row.key === "string" ? message(row) : null;
            if (html) write(sseData(html));
          },
          beat: () => write(": beat\n\n"),
          // A page holding a typed secret is not pictured: the last picture stays until it moves on.
          screen: (frame) => {
            if (frame.live)
              write(sseData(frameMessage({ live: true, jpeg: Buffer.from(frame.jpeg).toString("base64") })));
            else if (!frame.hidden) write(sseData(frameMessage({ live: false, jpeg: "" })));
          },
        }),
      { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" },
    );
  });
}
