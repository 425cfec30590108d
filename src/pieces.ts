// Pieces of typed secrets: once write has typed a secret's value, no run of 4 or more of its
// characters comes back in anything the server answers or logs (an edited or echoed value would
// otherwise give it away a piece at a time). Kept for the life of the process; imports nothing.

/** The shortest run of a typed value that is masked. */
export const PIECE = 4;
const MAX_VALUES = 1000;

const typed = new Set<string>();
// Every PIECE-long run of every typed value: where a masked stretch may start.
let starts = new Set<string>();

/** Registers a value write is about to type: its pieces are masked from now on. */
export function noteTyped(value: string): void {
  if (value.length < PIECE || typed.has(value)) return;
  if (typed.size >= MAX_VALUES) typed.delete(typed.values().next().value as string);
  typed.add(value);
  starts = new Set([...typed].flatMap((v) => runs(v)));
}

function runs(value: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + PIECE <= value.length; i++) out.push(value.slice(i, i + PIECE));
  return out;
}

/** Whether any value has been typed (nothing to mask before). */
export function anyTyped(): boolean {
  return typed.size > 0;
}

/** Forgets every typed value (a test's server closing; one process serves one app otherwise). */
export function forgetTyped(): void {
  typed.clear();
  starts = new Set();
}

/**
 * text with every run of PIECE or more characters of a typed value replaced by [hidden]; with
 * `among`, only of typed values that are among those (a catalogue's own).
 */
export function maskPieces(text: string, among?: readonly string[]): string {
  if (typed.size === 0 || text.length < PIECE) return text;
  if (among) {
    const mine = among.filter((v) => typed.has(v));
    if (mine.length === 0) return text;
    if (mine.length < typed.size) return maskWith(text, new Set(mine), new Set(mine.flatMap(runs)));
  }
  return maskWith(text, typed, starts);
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
