// Printing a benchmark: each figure beside its reference from the same run, as a ratio.
export interface Row {
  what: string;
  value: number;
  unit: string;
  ref: number;
  refName: string;
  target?: string;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

const fmt = (n: number) => (Number.isFinite(n) ? (n >= 100 ? n.toFixed(0) : n.toFixed(2)) : "n/a");

export function printTable(title: string, rows: Row[]): void {
  const lines = [
    `\n## ${title}`,
    "| figure | value | reference | ref value | ratio | target |",
    "|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.what} | ${fmt(r.value)} ${r.unit} | ${r.refName} | ${fmt(r.ref)} ${r.unit} | ${fmt(r.value / r.ref)}× | ${r.target ?? ""} |`,
    ),
  ];
  console.log(lines.join("\n"));
}

export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}
