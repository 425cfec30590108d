// Change notices for the admin's live updates: whoever changes a workspace says so here; the SSE
// stream turns each notice into that workspace's row.
export type Listener = (workspace: string) => void;

export class Events {
  private readonly listeners = new Set<Listener>();

  /** A workspace's record, browser, files or flows changed. */
  changed(workspace: string): void {
    for (const l of this.listeners) {
      try {
        l(workspace);
      } catch {
        // a listener's failure is its own
      }
    }
  }

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  get size(): number {
    return this.listeners.size;
  }
}
