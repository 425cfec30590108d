// Opening and ending the workspace's browser.
import { z } from "zod";
import { defineAction } from "../actions/define.ts";
import { OpenInput, OpenOutput } from "../actions/shapes.ts";

export const openSession = defineAction({
  name: "open_session",
  http: { method: "POST", path: "/browser" },
  title: "Open a browser",
  description: [
    "Open or replace this workspace's browser (any action opens one); restores saved site data. routes/offline/emulate alone: in place.",
  ].join(" "),
  docs: [
    "With no url it goes back to the workspace's last page (fresh=true stays on about:blank instead).",
    "Saved site data (see save_site_data) is restored before the first page loads; restore_site_data=false opens without it and deletes it, which is how you start as a new user.",
    "insecure=true accepts any certificate and gets no saved site data. capture=true reports the page's console errors and failed requests in each result as `page`.",
    "record=true films this browser's whole life as a video, from now until it ends; it appears under workspace://files/recordings shortly after. A person watches it, so only when one will — it costs the Grid. Not inherited: ask again for the next browser.",
    "Returns url, title, browser, width, height, settings, recording, and site_data when something was restored, skipped or forgotten. A first page that opens a dialog as it loads answers with dialog (its message), url and title empty, as navigate does: answer it with the dialog tool.",
  ].join(" "),
  input: OpenInput,
  output: OpenOutput,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
  browser: "open",
  handler: (ctx, input) => ctx.lifecycle.open(input),
});

export const endBrowser = defineAction({
  name: "end_browser",
  http: { method: "DELETE", path: "/browser" },
  title: "End the browser",
  description:
    "Quit the browser to free its Grid slot. History and saved site data stay; the next action reopens on the last page.",
  docs: "Returns ended: true once the Grid confirmed the browser quit (or it was gone already); ended: false when there was no browser, or with reason when the Grid did not confirm (the server ends that browser later).",
  input: z.strictObject({}),
  output: z.object({
    ended: z.boolean().describe("Whether the Grid confirmed it quit."),
    reason: z.string().optional().describe("Why not."),
  }),
  annotations: { readOnly: false, destructive: false, idempotent: true },
  browser: "end",
  handler: (ctx) => ctx.lifecycle.end(),
});
