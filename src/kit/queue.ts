// Work per key, one at a time within this server, in the order it was handed in: a promise chain
// per key, gone once the key's queue is empty. (The data dir and the store's compare-and-set settle
// what other servers do; this only keeps one process's own calls from racing each other.) Kept by
// hand: p-queue and async-mutex queue one line of work, and a queue per key over them is this
// same map of tails plus theirs.
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` after every earlier run of `key` has ended (fulfilled or not); answers what it does. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const mine = before.then(fn);
    const tail = mine.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return mine;
  }

  /** Resolves once every run of `key` handed in so far has ended. */
  async idle(key: string): Promise<void> {
    await this.tails.get(key);
  }

  /** Resolves once every run handed in so far, of every key, has ended. */
  async allIdle(): Promise<void> {
    await Promise.all(this.tails.values());
  }
}
