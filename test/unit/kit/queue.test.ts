// The per-key queue: one key's runs one at a time in the order handed in, a failed run does not
// stop the next, other keys run meanwhile, and idle waits for what was handed in so far.
import { expect, test } from "bun:test";
import { KeyedQueue } from "../../../src/kit/queue.ts";

const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

test("one key's runs go one at a time, in order; a failure is its own; another key does not wait", async () => {
  const q = new KeyedQueue();
  const log: string[] = [];
  const run = (key: string, name: string, ms: number, fail = false) =>
    q.run(key, async () => {
      log.push(`${name} start`);
      await later(ms, null);
      log.push(`${name} end`);
      if (fail) throw new Error(`${name} failed`);
      return name;
    });
  const a1 = run("a", "a1", 40, true);
  const a2 = run("a", "a2", 10);
  const b1 = run("b", "b1", 5);
  await expect(a1).rejects.toThrow("a1 failed");
  expect(await a2).toBe("a2");
  expect(await b1).toBe("b1");
  expect(log.indexOf("a2 start")).toBeGreaterThan(log.indexOf("a1 end"));
  // b ran while a1 was still running.
  expect(log.indexOf("b1 end")).toBeLessThan(log.indexOf("a1 end"));
});

test("idle resolves once the key's runs handed in so far have ended; allIdle for every key", async () => {
  const q = new KeyedQueue();
  let done = 0;
  void q.run("a", async () => {
    await later(30, null);
    done++;
  });
  void q.run("b", async () => {
    await later(60, null);
    done++;
  });
  await q.idle("a");
  expect(done).toBe(1);
  await q.allIdle();
  expect(done).toBe(2);
  // A key with nothing queued is idle at once.
  await q.idle("never");
});
