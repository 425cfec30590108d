// A person in the loop, on the workspace page: the question an agent waits on (with an answer box
// and Hand back) and Take over for the live view. static/ui.js sends what the person does to the
// admin's JSON routes (POST /admin/workspaces/{key}/answer and /input).

import { attr } from "../views/parts.tsx";
import type { personPart } from "./row.ts";

/** The row's fields these draw: its key and the person part's (a test gives less). */
type Row = { key: string } & Partial<ReturnType<typeof personPart>>;

const adminUrl = (key: string, what: string) => `/admin/workspaces/${encodeURIComponent(key)}/${what}`;

export const waitingOf = (row: Row) => row.waiting ?? null;

/** The agent's question above the live view, or an empty place for it. */
export function Asking(props: { row: Row }): JSX.Element {
  const { row } = props;
  const w = waitingOf(row);
  if (!w) return <section id="wsAsk" hidden />;
  return (
    <section
      id="wsAsk"
      class="card asking"
      data-since={String(w.since)}
      data-answer={attr(adminUrl(row.key, "answer"))}
    >
      <p class="question">
        <strong>The agent asks:</strong> <span safe>{w.question}</span>
      </p>
      <form class="answer">
        <input name="text" maxlength="2000" aria-label="Your answer" placeholder="Your answer" />
        <button type="submit">Hand back</button>
      </form>
    </section>
  );
}

/**
 * Take over: while on, the live picture's clicks, keys and wheel go to the page, a text box types,
 * and two lines say what the person can do and what the agent will find. A request that failed
 * (an input not sent, an answer not delivered) is said in the alert line.
 */
export function TakeOver(props: { row: Row }): JSX.Element {
  return (
    <div id="takeOver" class="take-over" data-input={attr(adminUrl(props.row.key, "input"))}>
      <div class="controls">
        <button type="button" class="take" aria-pressed="false">
          Take over
        </button>
        <form class="send-text" hidden>
          <input
            name="text"
            maxlength="2000"
            autocomplete="off"
            aria-label="Text to type on the page"
            placeholder="Text to type"
          />
          <button type="submit">Type</button>
        </form>
      </div>
      <ul class="how muted" hidden>
        <li>Click, type and scroll on the picture; it goes to the page.</li>
        <li>
          The agent's calls wait until Hand back. A password you typed and did not send is emptied then.
        </li>
      </ul>
      <p class="error" id="personError" role="alert" hidden />
    </div>
  );
}
