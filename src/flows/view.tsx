// The Flows tab: the workspace's flows and the global ones, each a fold with its YAML.
import { plural } from "../views/format.ts";
import { Fold, Rev, Total } from "../views/parts.tsx";

export interface FlowEntry {
  name: string;
  description?: string;
  /** A global flow (every workspace can run it) rather than the workspace's own. */
  global?: boolean;
  steps?: number;
  /** Why it cannot run as written. */
  problem?: string;
  yaml?: string;
  /** Why its YAML could not be read (the API's error). */
  error?: string;
}

export interface FlowsPayload {
  enabled?: boolean;
  flows?: FlowEntry[];
}

const flowRowId = (key: string, name: string) => `flow-${key}:${name}`;

export function FlowsPane(props: {
  workspace: string;
  data: Required<FlowsPayload>;
  rev: string;
  open?: string | null;
}): JSX.Element {
  const { workspace, data } = props;
  return (
    <>
      <Rev rev={props.rev} />
      {data.flows.length ? (
        data.flows.map((f, i) => (
          <Fold
            id={flowRowId(workspace, f.name)}
            open={props.open === f.name || i === 0}
            linked={props.open === f.name}
            title={<span safe>{f.name}</span>}
            meta={
              <>
                {f.global ? <span class="pill">global</span> : ""}
                <span class="muted clip" safe>
                  {[f.description, f.steps !== undefined ? plural(f.steps, "step") : ""]
                    .filter(Boolean)
                    .join(" · ")}
                </span>
              </>
            }
          >
            {f.problem ? (
              <p class="empty error" safe>
                {f.problem}
              </p>
            ) : (
              ""
            )}
            {f.yaml !== undefined ? (
              <pre class="yaml">
                <code safe>{f.yaml}</code>
              </pre>
            ) : (
              <p class="empty error" safe>
                {f.error ?? ""}
              </p>
            )}
          </Fold>
        ))
      ) : (
        <p class="empty">No flows yet.</p>
      )}
      <Total id="flowsTotal" n={data.flows.length} oob />
    </>
  );
}
