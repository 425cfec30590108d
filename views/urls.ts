// The UI's own paths. Workspace names are URL-safe already; hosts and names are encoded per segment.
export type Tab = "files" | "flows" | "site-data" | "history" | "timeline";
export const TABS: readonly Tab[] = ["files", "flows", "site-data", "history", "timeline"];

export const workspaceUrl = (key: string, tab?: Tab, item?: string) =>
  `/ui/workspaces/${encodeURIComponent(key)}${tab ? `/${tab}` : ""}${
    item !== undefined ? `/${encodeURIComponent(item)}` : ""
  }`;

/** Where a pane's fragment (and its actions) live. */
export const paneUrl = (key: string, tab: Tab) => `/ui/workspaces/${encodeURIComponent(key)}/panes/${tab}`;
