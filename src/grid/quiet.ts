// What leaves a browser while a bound write's value is in its page (spec §1.17): no screen is drawn,
// and what the field's documents log or request is withheld from logs. One hold for both, taken once
// every screen being drawn is in and let go once the fields are empty; the connection's event ring
// (event-log.ts) asks it, as each entry comes in, whether that entry's context is withheld.

export class Quiet {
  /** Screens being drawn now: a hold waits for them. */
  private readonly drawing = new Set<Promise<unknown>>();
  /** Bound writes under way: no screen is drawn while one is. */
  private writes = 0;
  /** Bound writes whose value is going in now (past their wait for the screens in flight). */
  private filling = 0;
  /** Screens drawn, and those drawn while a bound write's value was going in (never, by design: a test counts). */
  readonly screens = { drawn: 0, midWrite: 0 };
  /** The contexts whose entries are withheld now, each with its bound write's document's origin. */
  private readonly withholding = new Map<string, string[]>();

  /** A screen being drawn: a bound write waits for it before its value goes in. */
  drawn<T>(capture: Promise<T>): Promise<T> {
    this.screens.drawn++;
    if (this.filling > 0) this.screens.midWrite++;
    const done = capture.catch(() => undefined);
    this.drawing.add(done);
    void done.finally(() => this.drawing.delete(done));
    return capture;
  }

  /** Whether a bound write is under way: no screen is drawn while one is. */
  get writing(): boolean {
    return this.writes > 0;
  }

  /** The origin of the bound write's document when an entry of `context` is withheld now, else null. */
  withheldIn(context: string | null): string | null {
    return context === null ? null : (this.withholding.get(context)?.[0] ?? null);
  }

  /**
   * Holds screens off, once every one being drawn is in, and from then withholds what each of `docs`
   * (a context holding a field, with its document's origin) logs or requests; returns the release.
   * Navigations during the hold stay in it: the request a submit sends is the field's document's.
   */
  async hold(docs: readonly { context: string; origin: string }[]): Promise<() => void> {
    this.writes++;
    let held = true;
    let filling = false;
    const release = () => {
      if (held) this.writes--;
      if (filling) {
        this.filling--;
        for (const d of docs) {
          const origins = this.withholding.get(d.context) ?? [];
          const at = origins.indexOf(d.origin);
          if (at >= 0) origins.splice(at, 1);
          if (origins.length === 0) this.withholding.delete(d.context);
        }
      }
      held = false;
      filling = false;
    };
    while (this.drawing.size > 0) await Promise.all([...this.drawing]);
    if (held) {
      filling = true;
      this.filling++;
      for (const d of docs)
        this.withholding.set(d.context, [...(this.withholding.get(d.context) ?? []), d.origin]);
    }
    return release;
  }
}
