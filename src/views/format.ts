// The few words the views compute: plurals, relative times, count lines.

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

/** A cookie's expiry as a date (`2026-12-01`), or `session` when it has none. */
export function expiryText(expiry: number | null | undefined): string {
  if (typeof expiry !== "number" || !Number.isFinite(expiry)) return "session";
  const d = new Date(expiry * 1000);
  return Number.isNaN(d.getTime()) ? "session" : d.toISOString().slice(0, 10);
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** A row's counts: `6 screenshots · 2 recordings · 2 files`; zeros left out. */
export function countsText(row: Record<string, unknown>): string {
  const counts = (typeof row.counts === "object" && row.counts !== null ? row.counts : row) as Record<
    string,
    unknown
  >;
  const parts: string[] = [];
  for (const [field, word] of [
    ["screenshots", "screenshot"],
    ["recordings", "recording"],
    ["files", "file"],
    ["downloads", "download"],
    ["flows", "flow"],
  ] as const) {
    const n = num(counts[field]);
    if (n > 0) parts.push(plural(n, word));
  }
  return parts.join(" · ");
}

/** The saved pill of a History row: `2 cookies · 2 local`, zero counts left out. */
export function savedText(saved: { cookies?: number; local?: number; session?: number }): string {
  const parts: string[] = [];
  if (num(saved.cookies) > 0) parts.push(plural(num(saved.cookies), "cookie"));
  if (num(saved.local) > 0) parts.push(`${num(saved.local)} local`);
  if (num(saved.session) > 0) parts.push(`${num(saved.session)} session`);
  return parts.join(" · ");
}
