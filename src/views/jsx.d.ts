// The htmx 4 attributes and invoker commands the views use (kitajs ships htmx 2's names).
declare namespace JSX {
  interface HtmlTag {
    "hx-get"?: string;
    "hx-post"?: string;
    "hx-delete"?: string;
    "hx-target"?: string;
    "hx-swap"?: string;
    "hx-trigger"?: string;
    "hx-swap-oob"?: string;
    "hx-include"?: string;
    "hx-sse:connect"?: string;
    commandfor?: string;
    command?: "show-modal" | "close" | "request-close";
  }
  interface HtmlVideoTag {
    preload?: "none" | "metadata" | "auto";
  }
}
