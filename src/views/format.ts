// The few words many views compute: plurals, relative times.

/** `1 cookie`, `2 cookies`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** `just now`, `2m ago`, `1h ago`, `3d ago`, from epoch seconds. */
export function ago(at: number, now: number): string {
  const s = Math.max(0, Math.floor(now - at));
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}
