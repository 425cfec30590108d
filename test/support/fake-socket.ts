// A fake BiDi socket for unit tests of what a held connection follows: events are emitted by the
// test, commands answer with what `answer` says (or never, to stand for a browser the Grid removed).

import { type BidiSocket, BidiTimeout } from "../../src/grid/bidi.ts";
import { Log } from "../../src/log.ts";

type Handler = (params: unknown) => unknown;

export class FakeSocket {
  /** The server's log, as a real socket carries it. */
  readonly logger = new Log("warn");
  readonly sent: Array<{ method: string; params: unknown }> = [];
  private handlers: Array<{ event: string; context: string | null; handler: Handler }> = [];
  private closers: Array<() => void> = [];
  closed = false;
  /** Set when a probe went unanswered (as BidiSocket.probe does). */
  dead = false;

  constructor(
    private readonly answer: (method: string, params: unknown) => unknown | Promise<unknown> = () => ({}),
  ) {}

  get socket(): BidiSocket {
    return this as unknown as BidiSocket;
  }

  on(event: string, context: string | null, handler: Handler): () => void {
    const h = { event, context, handler };
    this.handlers.push(h);
    return () => {
      this.handlers = this.handlers.filter((x) => x !== h);
    };
  }

  emit(event: string, params: { context?: string } & Record<string, unknown>): void {
    for (const h of [...this.handlers]) {
      if (h.event === event && (h.context === null || h.context === params.context)) h.handler(params);
    }
  }

  async subscribe(): Promise<string> {
    return "sub";
  }

  /** Commands waiting that a dialog ends (BidiSocket.end), with the contexts they were sent for. */
  private readonly waiting = new Set<{ endsOn: readonly string[]; reject: (why: unknown) => void }>();

  async send(method: string, params: unknown, opts: { endsOn?: readonly string[] } = {}): Promise<unknown> {
    if (this.closed) throw new Error("closed");
    this.sent.push({ method, params });
    const answering = Promise.resolve(this.answer(method, params));
    const endsOn = opts.endsOn;
    const got = !endsOn
      ? await answering
      : await new Promise((resolve, reject) => {
          const w = { endsOn, reject };
          this.waiting.add(w);
          answering.then(resolve, reject).finally(() => this.waiting.delete(w));
        });
    // As BidiSocket keeps them: the intercepts this connection added.
    if (method === "network.addIntercept") this.intercepts.add((got as { intercept: string }).intercept);
    if (method === "network.removeIntercept")
      this.intercepts.delete((params as { intercept: string }).intercept);
    return got;
  }

  readonly intercepts = new Set<string>();
  readonly addingIntercept = false;
  private readonly attachments = new Map<symbol, unknown>();

  attached<T>(key: symbol, make: () => T): T {
    if (!this.attachments.has(key)) this.attachments.set(key, make());
    return this.attachments.get(key) as T;
  }

  /** BidiSocket.probe: the roots of the tree, through `answer`; a timeout finds the channel dead. */
  async probe(): Promise<boolean> {
    if (this.closed) return false;
    try {
      await this.send("browsingContext.getTree", { maxDepth: 0 });
      return true;
    } catch (err) {
      if (!(err instanceof BidiTimeout)) return true;
      this.dead = true;
      this.close();
      return false;
    }
  }

  /** BidiSocket.end: each command waiting for one of `contexts` fails with `why`. */
  end(contexts: readonly string[], why: unknown): void {
    for (const w of [...this.waiting]) {
      if (!w.endsOn.some((c) => contexts.includes(c))) continue;
      this.waiting.delete(w);
      w.reject(why);
    }
  }

  onClose(h: () => void): void {
    if (this.closed) h();
    else this.closers.push(h);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const h of this.closers.splice(0)) h();
  }
}
