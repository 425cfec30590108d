// The calls' families in the Prometheus text format: a counter and cumulative latency buckets per
// tool, surface and status, label values escaped, each family with HELP and TYPE.
import { expect, test } from "bun:test";
import { Activity } from "../../../src/admin/activity.ts";

const call = (tool: string, status: number, ms: number) =>
  ({ time: 0, workspace: "w", tool, surface: "rest", status, ms }) as const;

test("each call counts under its labels, its latency in cumulative buckets closed by +Inf, _sum and _count", async () => {
  const m = new Activity();
  for (const ms of [4, 100, 700]) m.add(call("navigate", 200, ms));
  m.add(call("read_page", 400, 2000));
  const lines = (await m.registry.metrics()).split("\n");
  const ok = 'tool="navigate",surface="rest",status="200"';
  expect(lines).toContain("# TYPE selenium_flow_calls_total counter");
  expect(lines).toContain(`selenium_flow_calls_total{${ok}} 3`);
  expect(lines).toContain('selenium_flow_calls_total{tool="read_page",surface="rest",status="400"} 1');
  expect(lines).toContain("# TYPE selenium_flow_call_duration_seconds histogram");
  expect(lines).toContain(`selenium_flow_call_duration_seconds_bucket{le="0.005",${ok}} 1`);
  expect(lines).toContain(`selenium_flow_call_duration_seconds_bucket{le="0.1",${ok}} 2`);
  expect(lines).toContain(`selenium_flow_call_duration_seconds_bucket{le="1",${ok}} 3`);
  expect(lines).toContain(`selenium_flow_call_duration_seconds_bucket{le="+Inf",${ok}} 3`);
  const sum = lines.find((l) => l.startsWith(`selenium_flow_call_duration_seconds_sum{${ok}} `));
  expect(Number(sum?.split(" ")[1])).toBeCloseTo(0.804, 9);
  expect(lines).toContain(`selenium_flow_call_duration_seconds_count{${ok}} 3`);
  // The activity log still lists them, newest first.
  expect(m.list().map((c) => c.tool)).toEqual(["read_page", "navigate", "navigate", "navigate"]);
});

test("label values escape backslash, quote and newline; two servers keep their own counts", async () => {
  const a = new Activity();
  const b = new Activity();
  a.add(call('a\\b"c\nd', 200, 1));
  expect(await a.registry.metrics()).toContain(
    'selenium_flow_calls_total{tool="a\\\\b\\"c\\nd",surface="rest",status="200"} 1',
  );
  expect(await b.registry.metrics()).not.toContain("selenium_flow_calls_total{");
});
