// The Prometheus text format: label values escaped, histogram buckets cumulative with +Inf, _sum, _count.
import { expect, test } from "bun:test";
import { exposition, Histogram, sample } from "../../src/metrics/text.ts";

test("a histogram's buckets count every value at or below their bound; +Inf, _sum and _count close it", () => {
  const h = new Histogram([0.1, 1, 10]);
  for (const v of [0.05, 0.1, 0.5, 3, 20]) h.observe({ tool: "navigate" }, v);
  h.observe({ tool: "read_page" }, 2);
  expect(h.lines("d")).toEqual([
    'd_bucket{tool="navigate",le="0.1"} 2',
    'd_bucket{tool="navigate",le="1"} 3',
    'd_bucket{tool="navigate",le="10"} 4',
    'd_bucket{tool="navigate",le="+Inf"} 5',
    'd_sum{tool="navigate"} 23.65',
    'd_count{tool="navigate"} 5',
    'd_bucket{tool="read_page",le="0.1"} 0',
    'd_bucket{tool="read_page",le="1"} 0',
    'd_bucket{tool="read_page",le="10"} 1',
    'd_bucket{tool="read_page",le="+Inf"} 1',
    'd_sum{tool="read_page"} 2',
    'd_count{tool="read_page"} 1',
  ]);
  expect(h.counts()).toEqual([
    { labels: { tool: "navigate" }, count: 5 },
    { labels: { tool: "read_page" }, count: 1 },
  ]);
});

test("label values escape backslash, quote and newline; each family has HELP and TYPE", () => {
  const text = exposition([
    {
      name: "x_total",
      help: "Things.",
      type: "counter",
      samples: [sample("x_total", 3, { v: 'a\\b"c\nd' })],
    },
    { name: "y", help: "Now.", type: "gauge", samples: [sample("y", 0)] },
  ]);
  expect(text).toBe(
    '# HELP x_total Things.\n# TYPE x_total counter\nx_total{v="a\\\\b\\"c\\nd"} 3\n# HELP y Now.\n# TYPE y gauge\ny 0\n',
  );
});
