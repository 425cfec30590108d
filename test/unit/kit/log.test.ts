// src/log.ts, of the shared base (kit/, errors.ts, log.ts).
// Each server's log is its own: two in one process share neither their listeners nor their
// redactors, and each keeps its own level.
import { expect, test } from "bun:test";
import { Log } from "../../../src/log.ts";

test("two logs in one process: each line reaches only its own log's sinks, redacted by its own redactor", () => {
  const a: string[] = [];
  const b: string[] = [];
  const one = new Log("info", () => undefined);
  const two = new Log("info", () => undefined);
  one.addSink((_line, entry) => a.push(entry.text));
  two.addSink((_line, entry) => b.push(entry.text));
  one.addRedaction((t) => t.replaceAll("Welcome2024!", "[hidden]"));
  one.info("workspace w: typed Welcome2024!");
  two.info("workspace w: the page says Welcome2024!");
  expect(a).toEqual(["workspace w: typed [hidden]"]);
  expect(b).toEqual(["workspace w: the page says Welcome2024!"]);
});

test("a log keeps its own level; a sink stops when told; credentials never reach a line", () => {
  const lines: string[] = [];
  const quiet = new Log("warn", (line) => lines.push(line));
  const loud = new Log("debug", () => undefined);
  quiet.info("not written");
  loud.debug("written elsewhere");
  quiet.warn("the Grid at http://user:hunter2@grid.example.test:4444 did not answer");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain("WARN");
  expect(lines[0]).not.toContain("hunter2");
  const seen: string[] = [];
  const stop = quiet.addSink((line) => seen.push(line));
  quiet.error("one");
  stop();
  quiet.error("two");
  expect(seen).toHaveLength(1);
});
