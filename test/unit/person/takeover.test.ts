// A take-over in the record: an agent's call waits while it holds, goes on once it ends, and after
// the wait is a 409 naming the person; one past its time holds nothing.
import { expect, test } from "bun:test";
import { endTakeOver, takeOver } from "../../../src/person/takeover.ts";
import { emptyRecord, type WorkspaceRecord } from "../../../src/store/record.ts";
import { awaitHandBack, takenOverIn } from "../../../src/workspaces/taken-over.ts";

function memoryStore() {
  const records = new Map<string, WorkspaceRecord>([["w", emptyRecord()]]);
  return {
    get: async (k: string) => records.get(k) ?? null,
    update: async (k: string, fn: (r: WorkspaceRecord | null) => WorkspaceRecord | null) => {
      const next = fn(records.get(k) ?? null);
      if (next) records.set(k, next);
      return next ?? records.get(k) ?? null;
    },
  };
}
const now = () => Date.now() / 1000;

test("a call waits while a person drives and goes on at Hand back", async () => {
  const store = memoryStore();
  await takeOver(store as never, "w", "Ada", now());
  let done = false;
  const waiting = awaitHandBack(store as never, "w", now, undefined, 5_000).then(() => (done = true));
  await Bun.sleep(400);
  expect(done).toBe(false);
  await endTakeOver(store as never, "w");
  await waiting;
  expect(done).toBe(true);
});

test("a call that waited too long is a 409 naming the person", async () => {
  const store = memoryStore();
  await takeOver(store as never, "w", "Ada (support)", now());
  const err = await awaitHandBack(store as never, "w", now, undefined, 300).catch((e) => e);
  expect(err.kind).toBe("conflict");
  expect(err.message).toContain("Ada (support) has taken over workspace w");
});

test("a take-over past its time holds nothing; none costs one read", async () => {
  const store = memoryStore();
  expect(takenOverIn(await store.get("w"), now())).toBeNull();
  await awaitHandBack(store as never, "w", now, undefined, 10);
  await takeOver(store as never, "w", "Ada", now() - 3600);
  expect(takenOverIn(await store.get("w"), now())).toBeNull();
});
