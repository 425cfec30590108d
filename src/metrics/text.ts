// The Prometheus text exposition format (version 0.0.4): families with HELP and TYPE, label values
// escaped, histograms as cumulative buckets with _sum and _count.

/** Seconds: from a quick click to a page that takes its time. */
export const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export type Labels = Record<string, string>;

const escapeLabel = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

function labelText(labels: Labels, extra?: [string, string]): string {
  const pairs = Object.entries(labels);
  if (extra) pairs.push(extra);
  return pairs.length ? `{${pairs.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}` : "";
}

const num = (n: number) => (n === Number.POSITIVE_INFINITY ? "+Inf" : String(n));

/** One histogram per label set: counts per upper bound, the sum and the count. */
export class Histogram {
  private readonly series = new Map<
    string,
    { labels: Labels; counts: number[]; sum: number; count: number }
  >();
  constructor(private readonly bounds: readonly number[] = SECONDS_BUCKETS) {}

  observe(labels: Labels, value: number): void {
    const key = JSON.stringify(labels);
    let s = this.series.get(key);
    if (!s) {
      s = { labels, counts: this.bounds.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    const series = s;
    this.bounds.forEach((b, i) => {
      if (value <= b) series.counts[i] = (series.counts[i] ?? 0) + 1;
    });
    series.sum += value;
    series.count++;
  }

  /** Each series' count, by its labels (the calls counter reads it). */
  counts(): { labels: Labels; count: number }[] {
    return [...this.series.values()].map((s) => ({ labels: s.labels, count: s.count }));
  }

  lines(name: string): string[] {
    const out: string[] = [];
    for (const s of this.series.values()) {
      this.bounds.forEach((b, i) => {
        out.push(`${name}_bucket${labelText(s.labels, ["le", num(b)])} ${s.counts[i]}`);
      });
      out.push(`${name}_bucket${labelText(s.labels, ["le", "+Inf"])} ${s.count}`);
      out.push(`${name}_sum${labelText(s.labels)} ${s.sum}`);
      out.push(`${name}_count${labelText(s.labels)} ${s.count}`);
    }
    return out;
  }
}

export interface Family {
  name: string;
  help: string;
  type: "counter" | "gauge" | "histogram";
  /** Sample lines, already named (a histogram's from Histogram.lines). */
  samples: string[];
}

/** One sample line: `name{labels} value`. */
export const sample = (name: string, value: number, labels: Labels = {}) =>
  `${name}${labelText(labels)} ${num(value)}`;

export function exposition(families: Family[]): string {
  return `${families
    .map((f) => [`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} ${f.type}`, ...f.samples].join("\n"))
    .join("\n")}\n`;
}
