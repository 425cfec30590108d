// A record change's fill for the result (issue 21): applied once the write is in, in the order the
// changes were asked for, and only from the write's last run; a change the write did not apply (the
// record names another browser) leaves the result as the handler made it.
import { expect, test } from "bun:test";
import { type Change, Effects } from "../../../src/actions/effects.ts";
import { SecretCatalogue } from "../../../src/secrets/catalogue.ts";
import { Redactor } from "../../../src/secrets/redactor.ts";
import { openStore } from "../../../src/store/index.ts";
import { emptyRecord } from "../../../src/store/record.ts";
import { settle } from "../../../src/workspaces/settle.ts";

const secrets = new SecretCatalogue({ dirs: [], entries: {} } as never);
const tag =
  (name: string): Change =>
  (record, _browser, fill) => {
    fill((result) => ({ ...result, seen: [...((result.seen as string[]) ?? []), name] }));
    return record;
  };

async function settled(sessionId: string, changes: Change[]) {
  const store = await openStore({ ttl: 86_400 });
  await store.update("w", () => ({ ...emptyRecord(), session_id: "b1" }));
  const d = { store, now: () => 1_790_800_000, redactor: new Redactor(secrets), fence: {} };
  const effects = new Effects();
  effects.land(null);
  for (const change of changes) effects.change(change);
  return settle(d, "w", { seen: ["handler"] }, sessionId, false, effects);
}

test("fills land on the result in order, after the write", async () => {
  expect((await settled("b1", [tag("one"), tag("two")])).seen).toEqual(["handler", "one", "two"]);
});

test("a write that does not apply the changes applies none of their fills", async () => {
  expect((await settled("another", [tag("one")])).seen).toEqual(["handler"]);
});
