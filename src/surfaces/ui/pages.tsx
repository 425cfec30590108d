// Secrets, Settings and Activity: read-only pages over the admin API.
import type { ActivityNote as FullNote } from "../../admin/activity.ts";
import { SecretItem, type SecretLine } from "../../site-data/history-view.tsx";
import { PageShell } from "../../views/layout.tsx";
import { attr, type Slice } from "../../views/parts.tsx";
import { workspaceUrl } from "../../views/urls.ts";

export interface Setting {
  key: string;
  value: unknown;
  source: string;
  description?: string;
}

export type ActivityNote = Slice<FullNote, "time" | "workspace" | "tool" | "status" | "ms">;

function Failure(props: { error?: string | null }): JSX.Element {
  return props.error ? (
    <p class="empty error" safe>
      {props.error}
    </p>
  ) : (
    ""
  );
}

/** The secrets a person gave one workspace (request_secret), as the Secrets page lists them. */
export interface WorkspaceSecrets {
  workspace: string;
  secrets: SecretLine[];
}

/** Remove for one listed secret: its row goes once the server dropped it. */
function RemoveSecret(props: { url: string }): JSX.Element {
  return (
    <button
      type="button"
      class="danger"
      hx-delete={attr(props.url)}
      hx-target="closest .given"
      hx-swap="outerHTML"
    >
      Remove
    </button>
  );
}

/** A person's secrets, each with Remove (names, keys and hosts only: never a value). */
function GivenSecrets(props: { given: WorkspaceSecrets[] }): JSX.Element {
  return (
    <>
      <h2>Given by a person, per workspace</h2>
      {props.given.length ? (
        <div class="list" id="givenSecrets">
          {props.given.flatMap((w) =>
            w.secrets.map((s) => (
              <div class="given">
                <a href={attr(workspaceUrl(w.workspace))} safe>
                  {w.workspace}
                </a>
                <SecretItem secret={s} hosts />
                <RemoveSecret
                  url={`/ui/secrets/workspaces/${encodeURIComponent(w.workspace)}/${encodeURIComponent(s.name)}`}
                />
              </div>
            )),
          )}
        </div>
      ) : (
        <p class="empty">No workspace has a secret a person gave it.</p>
      )}
    </>
  );
}

/** The server's own secrets (an admin entered them for every workspace), each with Remove, and the form that asks for one. */
function ServerSecrets(props: { server: SecretLine[] }): JSX.Element {
  return (
    <>
      <h2>Entered by an admin, for every workspace</h2>
      {props.server.length ? (
        <div class="list" id="serverSecrets">
          {props.server.map((s) => (
            <div class="given">
              <SecretItem secret={s} hosts />
              <RemoveSecret url={`/ui/secrets/server/${encodeURIComponent(s.name)}`} />
            </div>
          ))}
        </div>
      ) : (
        <p class="empty">No secret entered for the server.</p>
      )}
      <form hx-post="/ui/secrets/server" hx-target="#serverLink" hx-swap="innerHTML">
        <label>
          Name <input name="name" required maxlength="64" />
        </label>{" "}
        <label>
          Key <input name="key" required maxlength="64" value="password" />
        </label>{" "}
        <label>
          Sites (one a line) <textarea name="allowed_urls" required rows="2" />
        </label>{" "}
        <button type="submit">Make the link</button>
        <div id="serverLink" />
      </form>
    </>
  );
}

/** The link an admin opens to type a server secret's value (or what was wrong with the form). */
export function ServerLink(props: { link?: string; error?: string }): string {
  return (
    props.link ? (
      <p>
        Open{" "}
        <a href={attr(props.link)} target="_blank" rel="noreferrer">
          this page
        </a>{" "}
        and type the value there (the link works once, for ten minutes).
      </p>
    ) : (
      <p class="error" role="alert" safe>
        {props.error ?? ""}
      </p>
    )
  ) as string;
}

export function SecretsPage(props: {
  secrets: SecretLine[];
  given?: WorkspaceSecrets[];
  server?: SecretLine[];
  error?: string | null;
  signOut: boolean;
}): string {
  return PageShell({
    title: "Secrets",
    section: "secrets",
    signOut: props.signOut,
    children: (
      <>
        <h1>Secrets</h1>
        <Failure error={props.error} />
        {props.error ? (
          ""
        ) : props.secrets.length ? (
          <div class="list">
            {props.secrets.map((s) => (
              <SecretItem secret={s} hosts />
            ))}
          </div>
        ) : (
          <p class="empty">No secrets.</p>
        )}
        {props.error ? "" : <ServerSecrets server={props.server ?? []} />}
        {props.error ? "" : <GivenSecrets given={props.given ?? []} />}
      </>
    ),
  });
}

function valueText(v: unknown): string {
  if (v === null || v === undefined) return "—";
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}

export function SettingsPage(props: {
  settings: Setting[];
  error?: string | null;
  signOut: boolean;
}): string {
  return PageShell({
    title: "Settings",
    section: "settings",
    signOut: props.signOut,
    children: (
      <>
        <h1>Settings</h1>
        <Failure error={props.error} />
        {props.settings.length ? (
          <table class="table stack settings">
            <thead>
              <tr>
                <th>setting</th>
                <th>value</th>
                <th>source</th>
              </tr>
            </thead>
            <tbody>
              {props.settings.map((s) => (
                <tr>
                  <td>
                    <code safe>{s.key}</code>
                  </td>
                  <td class="clip value" title={attr(valueText(s.value))} safe>
                    {valueText(s.value)}
                  </td>
                  <td>
                    <span class={`pill source ${s.source === "default" ? "" : "set"}`} safe>
                      {s.source}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          ""
        )}
      </>
    ),
  });
}

export function ActivityPage(props: {
  calls: ActivityNote[];
  error?: string | null;
  signOut: boolean;
}): string {
  return PageShell({
    title: "Activity",
    section: "activity",
    signOut: props.signOut,
    children: (
      <>
        <h1>Activity</h1>
        <Failure error={props.error} />
        {props.error ? (
          ""
        ) : props.calls.length ? (
          <table class="table stack activity">
            <thead>
              <tr>
                <th>time</th>
                <th>workspace</th>
                <th>tool</th>
                <th>status</th>
                <th class="num">ms</th>
              </tr>
            </thead>
            <tbody>
              {props.calls.map((c) => (
                <tr class={c.status >= 400 ? "failed" : ""}>
                  <td>
                    <time datetime={new Date(c.time * 1000).toISOString()} safe>
                      {new Date(c.time * 1000).toISOString().slice(11, 19)}
                    </time>
                  </td>
                  <td class="ws">
                    <a href={attr(workspaceUrl(c.workspace))} safe>
                      {c.workspace}
                    </a>
                  </td>
                  <td>
                    <code safe>{c.tool}</code>
                  </td>
                  <td safe>{String(c.status)}</td>
                  <td class="num" safe>
                    {String(Math.round(c.ms))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p class="empty">No calls yet.</p>
        )}
      </>
    ),
  });
}

/** A page for a workspace or route that failed (the API's error). */
export function ErrorPage(props: { title: string; error: string; signOut: boolean }): string {
  return PageShell({
    title: props.title,
    section: "workspaces",
    signOut: props.signOut,
    children: (
      <>
        <h1 safe>{props.title}</h1>
        <p class="empty error" safe>
          {props.error}
        </p>
      </>
    ),
  });
}
