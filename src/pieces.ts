// Pieces of typed secrets, per browser: once write has typed a secret's value in a browser, no run
// of 4 or more of its characters comes back in anything read for that browser's workspace (an
// edited or echoed value would otherwise give it away a piece at a time), until the browser ends.
// Another workspace's reads are not masked with them: that would tell its agent, by what turns to
// [hidden], which runs of text are pieces of someone else's secret. Work outside any workspace's
// call (log lines, the admin's views) is masked with every browser's pieces. Also kept per browser:
// the origins a secret was typed on (a restored form puts it into a new document of one).
import { AsyncLocalStorage } from "node:async_hooks";

/** The shortest run of a typed value that is masked. */
export const PIECE = 4;
const MAX_VALUES = 1000;

interface Typed {
  /** The workspace whose reads the browser's pieces mask. */
  workspace: string;
  values: Set<string>;
  /** Every PIECE-long run of every value: where a masked stretch may start. */
  starts: Set<string>;
  origins: Set<string>;
}

/** By Grid session id. */
const browsers = new Map<string, Typed>();
const reading = new AsyncLocalStorage<string>();

// The workspace an error was thrown for: its message is masked as that workspace's read, wherever it is rendered.
const THROWN_FOR = Symbol("thrownFor");

/**
 * Runs `fn` as work read for `workspace`: what it masks are the pieces typed in that workspace's
 * browsers; an error it throws keeps the workspace for its message.
 */
export function readingFor<T>(workspace: string, fn: () => Promise<T>): Promise<T> {
  return reading.run(workspace, () =>
    fn().catch((err: unknown) => {
      if (typeof err === "object" && err !== null && !(THROWN_FOR in err))
        Object.defineProperty(err, THROWN_FOR, { value: workspace });
      throw err;
    }),
  );
}

/** Renders `err`'s message as read for the workspace it was thrown for (when it came out of readingFor). */
export function asThrown<T>(err: unknown, render: () => T): T {
  const workspace =
    typeof err === "object" && err !== null ? (err as { [THROWN_FOR]?: string })[THROWN_FOR] : undefined;
  return workspace === undefined ? render() : reading.run(workspace, render);
}

/** Registers a value write is about to type in `browser` on `origin`: its pieces are masked from now on. */
export function noteTyped(browser: string, workspace: string, value: string, origin: string): void {
  let t = browsers.get(browser);
  if (!t) {
    t = { workspace, values: new Set(), starts: new Set(), origins: new Set() };
    browsers.set(browser, t);
  }
  t.origins.add(origin);
  if (value.length < PIECE || t.values.has(value)) return;
  if (t.values.size >= MAX_VALUES) t.values.delete(t.values.values().next().value as string);
  t.values.add(value);
  t.starts = new Set([...t.values].flatMap(runs));
}

/** The origins a secret was typed on in `browser` (its documents of them count as typed). */
export function typedOrigins(browser: string): string[] {
  return [...(browsers.get(browser)?.origins ?? [])];
}

/** Whether a bound write ever typed in `browser`: one where none did holds no typed document. */
export function typedIn(browser: string): boolean {
  return browsers.has(browser);
}

/** The browser ended: its pieces and origins are forgotten. */
export function forgetBrowser(browser: string): void {
  browsers.delete(browser);
}

function runs(value: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + PIECE <= value.length; i++) out.push(value.slice(i, i + PIECE));
  return out;
}

/** The browsers whose pieces mask what is read here: the current workspace's, or every one outside a call. */
function inScope(): Typed[] {
  const workspace = reading.getStore();
  const all = [...browsers.values()];
  return workspace === undefined ? all : all.filter((t) => t.workspace === workspace);
}

/** Whether any value typed is masked here (nothing to mask before). */
export function anyTyped(): boolean {
  return inScope().some((t) => t.values.size > 0);
}

/** Forgets every typed value (a test's server closing; one process serves one app otherwise). */
export function forgetTyped(): void {
  browsers.clear();
}

/**
 * text with every run of PIECE or more characters of a typed value replaced by [hidden]; with
 * `among`, only of typed values that are among those (a catalogue's own).
 */
export function maskPieces(text: string, among?: readonly string[]): string {
  if (browsers.size === 0 || text.length < PIECE) return text;
  const scope = inScope();
  const one = scope.length === 1 ? scope[0] : undefined;
  if (one && !among) return one.values.size ? maskWith(text, one.values, one.starts) : text;
  const all = new Set(scope.flatMap((t) => [...t.values]));
  const typed = among ? among.filter((v) => all.has(v)) : [...all];
  if (typed.length === 0) return text;
  return maskWith(text, new Set(typed), new Set(typed.flatMap(runs)));
}

function maskWith(text: string, typed: ReadonlySet<string>, starts: ReadonlySet<string>): string {
  let out = "";
  let at = 0;
  let i = 0;
  while (i + PIECE <= text.length) {
    if (!starts.has(text.slice(i, i + PIECE))) {
      i++;
      continue;
    }
    // The longest run from i that is inside one typed value.
    let end = i + PIECE;
    for (const v of typed) {
      let e = i + PIECE;
      if (!v.includes(text.slice(i, e))) continue;
      while (e < text.length && v.includes(text.slice(i, e + 1))) e++;
      if (e > end) end = e;
    }
    out += `${text.slice(at, i)}[hidden]`;
    at = end;
    i = end;
  }
  return out + text.slice(at);
}
