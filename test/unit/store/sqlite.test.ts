// SQLite answers "database is locked" at once where waiting could deadlock (a read that must become
// a write, a switch of journal mode), whatever the busy timeout: two servers starting on one new
// file met it. Such an answer is tried again for up to the busy timeout; other failures are not.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../../src/store/sqlite.ts";

function locked(): Error {
  const err = new Error("database is locked");
  err.name = "SQLiteError";
  return err;
}

/** `store`'s statement `name` fails `times` times with `err`, then runs as before. */
function failing(store: SqliteStore, name: string, times: number, err: () => Error) {
  const ops = (store as unknown as { leaseOps: Record<string, { run: (...a: unknown[]) => unknown }> })
    .leaseOps;
  const statement = ops[name]!;
  const run = statement.run.bind(statement);
  let left = times;
  ops[name] = {
    ...statement,
    run: (...a: unknown[]) => {
      if (left-- > 0) throw err();
      return run(...a);
    },
  };
}

test("a statement SQLite answers 'database is locked' at once is run again, and goes in", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sf-sqlite-busy-"));
  try {
    const store = new SqliteStore({ path: join(dir, "records.sqlite"), busyTimeoutMs: 2_000 });
    failing(store, "putMark", 3, locked);
    await store.putMark("started", 60);
    expect(await store.hasMark("started")).toBe(true);
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a file locked for longer than the busy timeout is a 503 naming the file; another failure is not tried again", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sf-sqlite-busy-"));
  try {
    const path = join(dir, "records.sqlite");
    const store = new SqliteStore({ path, busyTimeoutMs: 100 });
    failing(store, "putMark", 1_000, locked);
    const err = (await store.putMark("never", 60).catch((e: unknown) => e)) as Error;
    expect(err.message).toBe(`the record store at ${path} did not answer: database is locked`);
    await store.close();
    // A store of its own: a store purges expired marks once a second at most.
    const other = new SqliteStore({ path, busyTimeoutMs: 100 });
    let tries = 0;
    failing(other, "purgeMarks", 1_000, () => {
      tries++;
      const e = new Error("disk I/O error");
      e.name = "SQLiteError";
      return e;
    });
    await other.putMark("io", 60).catch(() => undefined);
    expect(tries).toBe(1);
    await other.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
