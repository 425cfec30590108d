// The questions agents are waiting on, by workspace: one at a time each. A wait costs nothing
// while it waits (no browser work, no polling): an answer or a cancel wakes it through an event.
// Held in this process (the admin's answer reaches the server the agent's call is on).

export interface Waiting {
  question: string;
  /** Epoch seconds it began. */
  since: number;
}

interface Entry extends Waiting {
  wake: (answer: string | null) => void;
}

const waits = new Map<string, Entry>();

/** What the workspace's agent is waiting on, if anything. */
export function waitingOn(workspace: string): Waiting | null {
  const w = waits.get(workspace);
  return w ? { question: w.question, since: w.since } : null;
}

/**
 * Waits for a person's answer (a string), or null when `ms` pass or `signal` aborts; the row is
 * cleared either way. false when the workspace already waits on a question.
 */
export function ask(
  workspace: string,
  question: string,
  ms: number,
  signal: AbortSignal,
  changed: () => void,
): Promise<string | null> | false {
  if (waits.has(workspace)) return false;
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = (answer: string | null) => {
      if (waits.get(workspace) !== entry) return;
      waits.delete(workspace);
      clearTimeout(timer);
      signal.removeEventListener("abort", cancel);
      changed();
      resolve(answer);
    };
    const cancel = () => done(null);
    const entry: Entry = { question, since: Date.now() / 1000, wake: done };
    waits.set(workspace, entry);
    timer = setTimeout(cancel, ms);
    if (signal.aborted) return cancel();
    signal.addEventListener("abort", cancel, { once: true });
    changed();
  });
}

/** Answers the workspace's question; false when nothing waits. */
export function answer(workspace: string, text: string): boolean {
  const w = waits.get(workspace);
  if (!w) return false;
  w.wake(text);
  return true;
}
