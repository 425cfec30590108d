// The UI's own paths. Workspace names are URL-safe already; hosts and names are encoded per segment.
// A tab is named by its slug (its capability's descriptor, src/registry.ts's TABS).

/** A workspace tab as the page draws it (the registry's tabs fit it). */
export interface TabFace {
  slug: string;
  label: string;
  /** The row fields whose move reloads the pane; the first one names the pane. */
  revFields: readonly string[];
  /** What a push swaps in for the pane's loader, when not the whole pane again. */
  reloader?: (workspace: string) => JSX.Element;
}

export const workspaceUrl = (key: string, tab?: string, item?: string) =>
  `/ui/workspaces/${encodeURIComponent(key)}${tab ? `/${tab}` : ""}${
    item !== undefined ? `/${encodeURIComponent(item)}` : ""
  }`;

/** Where a pane's fragment (and its actions) live. */
export const paneUrl = (key: string, tab: string) => `/ui/workspaces/${encodeURIComponent(key)}/panes/${tab}`;
