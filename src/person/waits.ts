// The questions agents wait on (ask_human), one per workspace at a time, kept in the workspace's
// record so every server of a group shows it and can take its answer. The agent's call waits on the
// server it came to, with no browser and no lease; the person's answer may come to any server: it is
// written into the record and the waiting server looks at once (woken in this process, or through
// the store's nudge: Redis pub/sub), else at its next look (every POLL_MS: a group on one SQLite
// file). The answer call waits for the agent's call to take the answer: an answer is delivered
// exactly once, or the person is told it was not (and it is withdrawn, never taken later).
import { conflict, unavailable } from "../errors.ts";
import { emptyRecord, type Question, unasked, type WorkspaceRecord } from "../store/record.ts";
import type { RecordStore } from "../store/types.ts";
import { updateWith } from "../store/update.ts";

/** How often a waiter looks at the record on its own (no nudge came). */
const POLL_MS = 1_000;
/** How long a person's answer waits for the agent's call to take it. */
const TAKE_MS = 10_000;
/** How long the outcome of a question (taken, dropped) stays readable by the answer waiting on it. */
const OUTCOME_KEEP_S = 120;

export interface Waiting {
  question: string;
  /** Epoch seconds it began. */
  since: number;
}

type Store = Pick<RecordStore, "get" | "update" | "putMark" | "hasMark" | "nudge" | "watchNudges">;

const nowS = () => Date.now() / 1000;
const taken = (id: string) => `question-taken:${id}`;
const dropped = (id: string) => `question-dropped:${id}`;

/** The question `record` shows as waiting for a person (asked, not answered, not past its time). */
export function waitingIn(record: WorkspaceRecord | null): Waiting | null {
  const q = record?.question;
  return q && q.answer === undefined && q.until > nowS() ? { question: q.text, since: q.since } : null;
}

/** The question the record holds while its asker may still take an answer. */
const open = (q: Question | undefined): q is Question => !!q && q.until > nowS();

export class Questions {
  /** Waiters on this server (askers and answers), by workspace: woken to look at the record again. */
  private readonly sleepers = new Map<string, Set<() => void>>();
  private watching = false;

  constructor(
    private readonly store: Store,
    /** A workspace's row changed (admin live updates). */
    private readonly changed: (workspace: string) => void,
    private readonly timing = { pollMs: POLL_MS, takeMs: TAKE_MS },
  ) {}

  /**
   * Waits for a person's answer (a string), or null when `ms` pass, `signal` aborts, the person
   * declines (in the agent's client), or an admin's End or Forget (on any server) removes the
   * question. A 409 when the workspace already waits. `id` names the question (the client asked in
   * its own window answers it by that id); `asked` runs once it is in the record.
   */
  async ask(
    workspace: string,
    text: string,
    ms: number,
    signal: AbortSignal,
    opts: { id?: string; asked?: () => void } = {},
  ): Promise<string | null> {
    const id = opts.id ?? crypto.randomUUID();
    const until = await this.place(workspace, text, ms, { id });
    opts.asked?.();
    let got: string | null = null;
    try {
      for (;;) {
        const q = (await this.store.get(workspace))?.question;
        // Gone, or another's: an admin's End or Forget removed it.
        if (!q || q.id !== id) return null;
        if (q.answer !== undefined && !signal.aborted) {
          got = await this.take(workspace, id);
          if (got !== null) return got;
        }
        const left = until * 1000 - Date.now();
        if (signal.aborted || left <= 0) break;
        await this.nap(workspace, Math.min(this.timing.pollMs, left), signal);
      }
      // Time is up: an answer that came meanwhile is still the agent's; a stopped call takes none.
      if (!signal.aborted) got = await this.take(workspace, id);
      return got;
    } finally {
      if (got === null) await this.drop(workspace, id);
    }
  }

  /**
   * Puts the question in the workspace's record (a 409 when one waits there already) and answers
   * its `until` (epoch seconds). `rounds`: no call waits on it; the agent's client asks again.
   */
  async place(
    workspace: string,
    text: string,
    ms: number,
    opts: { id: string; rounds?: boolean },
  ): Promise<number> {
    const since = nowS();
    const until = since + ms / 1000;
    const question: Question = {
      id: opts.id,
      text,
      since,
      until,
      ...(opts.rounds && { rounds: true as const }),
    };
    const placed = await updateWith(this.store, workspace, (cur) =>
      open(cur?.question)
        ? { record: null, value: false }
        : { record: { ...(cur ?? emptyRecord()), question }, value: true },
    );
    if (!placed.value)
      throw conflict(
        `workspace ${workspace} already waits on a question: wait for its answer before asking another`,
      );
    this.changed(workspace);
    return until;
  }

  /**
   * The agent's client answered the question `id` in its own window: `text`, or null when its user
   * declined. Delivered as a person's answer is (once, to the call that waits), or ends the wait.
   */
  async reply(workspace: string, id: string, text: string | null): Promise<void> {
    if (text !== null) return this.answer(workspace, text, id);
    const gone = await updateWith(this.store, workspace, (cur) =>
      cur?.question?.id === id && cur.question.answer === undefined
        ? { record: unasked(cur), value: true }
        : { record: null, value: false },
    );
    if (!gone.value) return;
    await this.store.putMark(dropped(id), OUTCOME_KEEP_S).catch(() => undefined);
    await this.tell(workspace);
  }

  /**
   * A question asked in rounds, the agent's client back with its user's answer (null: declined):
   * the answer a person gave meanwhile if there is one, else the client's; null when the question
   * is gone (its time passed, End, Forget). Either way the question is done.
   */
  async close(workspace: string, id: string, text: string | null): Promise<string | null> {
    const got = await updateWith(this.store, workspace, (cur) => {
      const q = cur?.question;
      if (!cur || q?.id !== id) return { record: null, value: null };
      return { record: unasked(cur), value: open(q) ? (q.answer ?? text) : null };
    });
    await this.store
      .putMark(got.value === null ? dropped(id) : taken(id), OUTCOME_KEEP_S)
      .catch(() => undefined);
    await this.tell(workspace);
    return got.value;
  }

  /**
   * Gives the workspace's question `text` as its answer (only question `id`, when given) and waits
   * for the agent's call to take it. A 409 when nothing waits, or when the call ended before taking
   * it; a 503 when it did not take it in time (its server may be gone). Either way the answer is
   * withdrawn: nobody gets it later. A question asked in rounds keeps the answer for the client's
   * next round at once (no call waits to take it).
   */
  async answer(workspace: string, text: string, only?: string): Promise<void> {
    const given = await updateWith(this.store, workspace, (cur) => {
      const q = cur?.question;
      if (!cur || !open(q) || q.answer !== undefined || (only && q.id !== only))
        return { record: null, value: null };
      return { record: { ...cur, question: { ...q, answer: text } }, value: q };
    });
    const id = given.value?.id ?? null;
    if (id === null) throw conflict(`workspace ${workspace} is not waiting on a question`);
    await this.tell(workspace);
    if (given.value?.rounds) return;
    const deadline = Date.now() + this.timing.takeMs;
    let ended = false;
    while (Date.now() < deadline) {
      if (await this.store.hasMark(taken(id))) return;
      if (await this.store.hasMark(dropped(id))) {
        ended = true;
        break;
      }
      await this.nap(workspace, Math.min(this.timing.pollMs, deadline - Date.now()));
    }
    const withdrawn = await updateWith(this.store, workspace, (cur) => {
      const q = cur?.question;
      if (!cur || q?.id !== id || q.answer === undefined) return { record: null, value: false };
      const { answer: _gone, ...unanswered } = q;
      return { record: { ...cur, question: unanswered }, value: true };
    });
    // Taken at the last moment, between the last look and the withdrawal.
    if (!withdrawn.value && (await this.store.hasMark(taken(id)))) return;
    if (withdrawn.value) await this.tell(workspace);
    if (ended)
      throw conflict(
        `the answer was not delivered: the agent's call on workspace ${workspace} ended before it could take it (it timed out or was cancelled); nothing was passed on`,
      );
    throw unavailable(
      `the answer was not delivered: the agent's call on workspace ${workspace} did not take it within ${this.timing.takeMs / 1000} s (its server may be gone); nothing was passed on, and the question still waits`,
    );
  }

  /** An admin's End or Forget: the workspace's question goes, and its asker (on any server) returns. */
  async cancel(workspace: string): Promise<void> {
    const gone = await updateWith(this.store, workspace, (cur) =>
      cur?.question ? { record: unasked(cur), value: cur.question.id } : { record: null, value: null },
    );
    if (gone.value === null) return;
    await this.store.putMark(dropped(gone.value), OUTCOME_KEEP_S).catch(() => undefined);
    await this.tell(workspace);
  }

  /** Takes the answer off the record, once: null when it was not there to take. */
  private async take(workspace: string, id: string): Promise<string | null> {
    const got = await updateWith(this.store, workspace, (cur) => {
      const q = cur?.question;
      return cur && q?.id === id && q.answer !== undefined
        ? { record: unasked(cur), value: q.answer }
        : { record: null, value: null };
    });
    if (got.value === null) return null;
    await this.store.putMark(taken(id), OUTCOME_KEEP_S);
    await this.tell(workspace);
    return got.value;
  }

  /** The asker leaves without an answer: its question goes, and an answer given meanwhile is told. */
  private async drop(workspace: string, id: string): Promise<void> {
    try {
      await this.store.update(workspace, (cur) => (cur?.question?.id === id ? unasked(cur) : null));
      await this.store.putMark(dropped(id), OUTCOME_KEEP_S);
    } catch {
      // The store is down: the question lapses at its own time.
    }
    await this.tell(workspace);
  }

  /** Wakes whoever waits on the workspace, here and on every other server. */
  private async tell(workspace: string): Promise<void> {
    this.changed(workspace);
    this.wake(workspace);
    await this.store.nudge?.(workspace).catch(() => undefined);
  }

  private nap(workspace: string, ms: number, signal?: AbortSignal): Promise<void> {
    if (!this.watching) {
      this.watching = true;
      this.store.watchNudges?.((name) => this.wake(name));
    }
    return new Promise((resolve) => {
      const set = this.sleepers.get(workspace) ?? new Set<() => void>();
      this.sleepers.set(workspace, set);
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        set.delete(done);
        if (set.size === 0 && this.sleepers.get(workspace) === set) this.sleepers.delete(workspace);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      signal?.addEventListener("abort", done, { once: true });
      set.add(done);
    });
  }

  private wake(workspace: string): void {
    for (const done of [...(this.sleepers.get(workspace) ?? [])]) done();
  }
}
