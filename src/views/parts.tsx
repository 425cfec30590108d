// Shared pieces: the accordion row (a fold), the confirm dialog and its goes/stays pairs, pills.
import type { Children } from "@kitajs/html";

/**
 * A view's slice of a read model: the fields it cannot draw without, and the rest optional (the
 * pages hand the views the admin's read models in-process, and the compiler checks that each fits;
 * a test can give a view less than the server would).
 */
export type Slice<T, Need extends keyof T> = Pick<T, Need> & Partial<Omit<T, Need>>;

/**
 * An attribute value with `& < > " '` escaped. kitajs escapes only `"` in attributes; this keeps a
 * hostile value from carrying `<`/`>` into attributes, where htmx's response scanning looks for tags.
 */
export const attr = (value: string): string => Bun.escapeHTML(value);

/** A rendered view: kitajs renders synchronously when no component is async (none here is). */
export function render(el: JSX.Element): string {
  if (typeof el !== "string") throw new Error("a view rendered asynchronously");
  return el;
}

/**
 * One row as a fold. The head's button controls the body by id; `open` is the default the server
 * draws, and static/ui.js keeps the reader's choice per row id after that. With `foldable` false the
 * row has nothing to open: no button, no aria-expanded, the caret's place kept.
 */
export function Fold(props: {
  id: string;
  title: Children;
  open: boolean;
  foldable?: boolean;
  linked?: boolean;
  meta?: Children;
  actions?: Children;
  children?: Children;
}): JSX.Element {
  const body = attr(`${props.id}Body`);
  const foldable = props.foldable !== false;
  return (
    <section class="section" id={attr(`${props.id}Section`)} data-linked={props.linked ? "" : undefined}>
      <div class="head">
        {foldable ? (
          <button type="button" class="fold" aria-expanded={String(props.open)} aria-controls={body}>
            <span class="caret" aria-hidden="true" />
            <span class="title">{props.title}</span>
          </button>
        ) : (
          <span class="fold">
            <span class="caret blank" aria-hidden="true" />
            <span class="title">{props.title}</span>
          </span>
        )}
        {props.meta}
        {props.actions ? <span class="actions">{props.actions}</span> : ""}
      </div>
      {foldable ? (
        <div class="body" id={body} hidden={!props.open}>
          {props.children}
        </div>
      ) : (
        ""
      )}
    </section>
  );
}

export interface Pair {
  fate: "goes" | "stays";
  text: string;
}

/** A confirm: title, one line of body, what goes and what stays, Cancel and the danger verb. */
export function Confirm(props: {
  id: string;
  title: string;
  body: string;
  pairs: Pair[];
  verb: string;
  action: { method: "delete" | "post"; url: string; target: string };
}): JSX.Element {
  const hx =
    props.action.method === "delete"
      ? { "hx-delete": attr(props.action.url) }
      : { "hx-post": attr(props.action.url) };
  return (
    <dialog class="modal" id={attr(props.id)} aria-labelledby={attr(`${props.id}Title`)}>
      <div class="head" id={attr(`${props.id}Title`)} safe>
        {props.title}
      </div>
      <p safe>{props.body}</p>
      {props.pairs.length ? (
        <div class="pairs fate-list">
          {props.pairs.map((p) => (
            <div class="pair">
              <span class={`pk ${p.fate}`}>{p.fate}</span>
              <span class="pv" safe>
                {p.text}
              </span>
            </div>
          ))}
        </div>
      ) : (
        ""
      )}
      <div class="buttons">
        <button type="button" commandfor={attr(props.id)} command="close">
          Cancel
        </button>
        <button type="button" class="danger" {...hx} hx-target={props.action.target} safe>
          {props.verb}
        </button>
      </div>
    </dialog>
  );
}

/** A button that opens the confirm `dialog`. */
export function Opens(props: {
  dialog: string;
  id?: string;
  title?: string;
  disabled?: boolean;
  children: Children;
}) {
  return (
    <button
      type="button"
      class="danger"
      id={props.id === undefined ? undefined : attr(props.id)}
      title={props.title === undefined ? undefined : attr(props.title)}
      disabled={props.disabled === true}
      commandfor={attr(props.dialog)}
      command="show-modal"
    >
      {props.children}
    </button>
  );
}

/** The pane's revision marker: what rev it shows ("" after a failure, so the next push retries). */
export function Rev(props: { rev: string }): JSX.Element {
  return <i hidden data-rev={props.rev} />;
}

/** A tab's count, swapped in beside the pane it counts (empty while loading or after a failure). */
export function Total(props: { id: string; n: number | null; oob?: boolean }): JSX.Element {
  return (
    <span class="count" id={props.id} hx-swap-oob={props.oob ? "true" : undefined}>
      {props.n === null ? "" : String(props.n)}
    </span>
  );
}

/** A pane that failed: the API's error, its count emptied, no rev (the next push retries). */
export function Failed(props: { error: string; total: string }): JSX.Element {
  return (
    <>
      <Rev rev="" />
      <p class="empty error" safe>
        {props.error}
      </p>
      <Total id={props.total} n={null} oob />
    </>
  );
}

/** A failed action's error, shown above what it acted on. */
export function ErrorNotice(props: { error: string }): JSX.Element {
  return (
    <p class="empty error notice" safe>
      {props.error}
    </p>
  );
}
