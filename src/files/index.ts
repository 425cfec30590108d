// The files capability as the registry lists it: its actions and resources, its admin routes, its row
// part, its signed links' routes, and the Files tab.

import { capability, tabsOver } from "../admin/capability.ts";
import { keepFile as keepFileAction, uploadFile } from "./actions.ts";
import { clearFolder, deleteKept, filesListing, filesRoutes, keepFile } from "./admin.ts";
import { fileResources } from "./resources.ts";
import { fileRoutes } from "./routes.ts";
import { filesPart } from "./row.ts";
import type { Files } from "./service.ts";
import { setupFiles } from "./setup.ts";
import { FilesPane } from "./view.tsx";

const tab = tabsOver(filesPart);

export const files = capability({
  name: "files",
  build: ({ config, grid, store, now, events, log }) => ({
    files: setupFiles(config, { grid, records: store, now, changed: (w) => events.changed(w), log }).files,
  }),
  actions: [uploadFile, keepFileAction],
  resources: fileResources,
  adminRoutes: filesRoutes,
  routes: fileRoutes,
  row: filesPart,
  tabs: [
    tab({
      slug: "files",
      label: "Files",
      revFields: ["files_rev"],
      load: filesListing,
      render: ({ workspace, data, rev }) => {
        const { files, screenshots, recordings, downloads } = data;
        // An empty `off` while files are on.
        const off = "off" in data ? data.off : "";
        return FilesPane({ workspace, data: { off, files, screenshots, recordings, downloads }, rev });
      },
      ops: [
        {
          method: "POST",
          path: [":folder", ":name", "keep"],
          run: (s, k, p) => keepFile(s, k, p.folder!, p.name!),
        },
        { method: "DELETE", path: ["screenshots"], run: (s, k) => clearFolder(s, k, "screenshots") },
        { method: "DELETE", path: ["recordings"], run: (s, k) => clearFolder(s, k, "recordings") },
        { method: "DELETE", path: [":name"], run: (s, k, p) => deleteKept(s, k, p.name!) },
      ],
    }),
  ],
});

// What a handler gets of this capability.
declare module "../actions/ports.ts" {
  interface ActionServices {
    /** The workspace's files. */
    readonly files: Files;
  }
}
