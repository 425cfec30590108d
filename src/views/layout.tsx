// The page shell: head (CSS, htmx and its SSE and upsert extensions, the fold script), top bar.
import type { Children } from "@kitajs/html";
import { assetUrl } from "./assets.ts";

export type Section = "workspaces" | "secrets" | "settings" | "activity";

const NAV: ReadonlyArray<[Section, string, string]> = [
  ["workspaces", "Workspaces", "/ui/"],
  ["secrets", "Secrets", "/ui/secrets"],
  ["settings", "Settings", "/ui/settings"],
  ["activity", "Activity", "/ui/activity"],
];

export function PageShell(props: {
  title: string;
  section?: Section | null;
  /** Draw the nav and Sign out (false on the sign-in page). */
  signedIn?: boolean;
  /** Whether a token guards the server (no token: nothing to sign out of). */
  signOut?: boolean;
  children?: Children;
}): string {
  const body = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="htmx-config" content='{"includeIndicatorCSS": false}' />
        <title safe>{`${props.title} · selenium-flow`}</title>
        <link rel="icon" href={assetUrl("icon.svg")} />
        <link rel="stylesheet" href={assetUrl("ui.css")} />
        {/* Blocking, in order: htmx starts on DOMContentLoaded, after its extensions. Deferred, it
            starts as soon as it has run, and an extension still on its way misses the page (a live
            feed that never connects). */}
        <script src={assetUrl("htmx.js")} />
        <script src={assetUrl("hx-sse.js")} />
        <script src={assetUrl("hx-upsert.js")} />
        <script defer src={assetUrl("ui.js")} />
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/ui/">
            selenium-flow
          </a>
          {props.signedIn !== false ? (
            <nav>
              {NAV.map(([id, label, href]) => (
                <a href={href} aria-current={props.section === id ? "page" : undefined}>
                  {label}
                </a>
              ))}
            </nav>
          ) : (
            ""
          )}
          {props.signedIn !== false && props.signOut ? (
            <form method="post" action="/ui/sign-out" class="sign-out">
              <button type="submit">Sign out</button>
            </form>
          ) : (
            ""
          )}
        </header>
        <main>{props.children}</main>
      </body>
    </html>
  );
  if (typeof body !== "string") throw new Error("a page rendered asynchronously");
  return `<!doctype html>${body}`;
}
