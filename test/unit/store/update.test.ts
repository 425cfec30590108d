// updateWith: a record write whose fn answers a value beside the record. The value is the run's
// that wrote: a store that runs fn again (Redis on a conflict) answers the last run's.
import { beforeEach, describe, expect, test } from "bun:test";
import { LeaseLost } from "../../../src/errors.ts";
import { openStore, type RecordStore } from "../../../src/store/index.ts";
import { emptyRecord, type WorkspaceRecord } from "../../../src/store/record.ts";
import { updateWith } from "../../../src/store/update.ts";

const W = "w";
let store: RecordStore;

beforeEach(async () => {
  store = await openStore({ ttl: 86_400 });
});

describe("updateWith", () => {
  test("writes the record fn returns and answers its value, read from the record at write time", async () => {
    await store.set(W, { ...emptyRecord(), session_id: "first" });
    const out = await updateWith(store, W, (cur) => ({
      record: cur ? { ...cur, session_id: "second" } : cur,
      value: cur?.session_id ?? null,
    }));
    expect(out.value).toBe("first");
    expect(out.record?.session_id).toBe("second");
    expect((await store.get(W))?.session_id).toBe("second");
  });

  test("a record that is not there is null to fn, and null written stays nothing", async () => {
    const out = await updateWith(store, W, (cur) => ({ record: cur, value: cur === null }));
    expect(out).toEqual({ record: null, value: true });
    expect(await store.get(W)).toBeNull();
  });

  test("fn run again by the store (a retried write): the value is the last run's", async () => {
    await store.set(W, { ...emptyRecord(), session_id: "a" });
    // Runs fn on a record another writer has since changed, then once more on the real one.
    const retrying = Object.create(store) as RecordStore;
    retrying.update = (key, fn, opts) => {
      fn({ ...emptyRecord(), session_id: "stale" });
      return store.update(key, fn, opts);
    };
    const seen: string[] = [];
    const out = await updateWith(retrying, W, (cur) => {
      seen.push(cur?.session_id ?? "");
      return { record: cur, value: cur?.session_id };
    });
    expect(seen).toEqual(["stale", "a"]);
    expect(out.value).toBe("a");
  });

  test("a fenced write that lost its lease throws, and nothing is written", async () => {
    await store.set(W, { ...emptyRecord(), session_id: "kept" });
    const token = await store.takeLease(W, "t", 10_000);
    expect(token).toBeGreaterThan(0);
    await store.breakLease(W);
    const err = await updateWith(
      store,
      W,
      (cur) => ({ record: { ...(cur as WorkspaceRecord), session_id: "lost" }, value: 1 }),
      { fence: { name: W, token: token as number } },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseLost);
    expect((await store.get(W))?.session_id).toBe("kept");
  });

  test("a store that resolves without running fn is an error, not an undefined value", async () => {
    const lazy = { update: async () => null } as unknown as RecordStore;
    const err = await updateWith(lazy, W, () => ({ record: null, value: 1 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain("did not run the update");
  });
});
