// A record change's fill for the result (issue 21): applied once the write is in, in the order the
// changes were asked for, and only from the write's last run; a change the write did not apply (the
// record names another browser) leaves the result as the handler made it. The settle's one pass of
// the redactor: a landing that carries a secret is not recorded and the result leaves redacted, a
// fill's too; the focus the call left is written in the same write.
import { expect, test } from "bun:test";
import { type Change, Effects } from "../../../src/actions/effects.ts";
import { SecretCatalogue } from "../../../src/secrets/catalogue.ts";
import { Redactor } from "../../../src/secrets/redactor.ts";
import { openStore } from "../../../src/store/index.ts";
import { emptyRecord } from "../../../src/store/record.ts";
import { settle } from "../../../src/workspaces/runner.ts";

const VALUE = "s3cret-Value-42";
const secrets = new SecretCatalogue({ dirs: [], entries: { s: { keys: { k: { value: VALUE } } } } } as never);
const tag =
  (name: string): Change =>
  (record, _browser, fill) => {
    fill((result) => ({ ...result, seen: [...((result.seen as string[]) ?? []), name] }));
    return record;
  };

const call = (id: string) => ({ browser: { id } as never, turn: {} });

async function settled(
  sessionId: string,
  changes: Change[],
  raw: Record<string, unknown> = {},
  land = true,
): Promise<Record<string, any>> {
  const store = await openStore({ ttl: 86_400 });
  await store.update("w", () => ({ ...emptyRecord(), session_id: "b1" }));
  const d = { store, now: () => 1_790_800_000, services: { redactor: new Redactor(secrets) } };
  const effects = new Effects();
  if (land) effects.land(null);
  effects.focus = { tab: "t2", frame: null };
  for (const change of changes) effects.change(change);
  const result = await settle(d, "w", call(sessionId), { seen: ["handler"], ...raw }, effects);
  return { ...result, record: await store.get("w") };
}

test("fills land on the result in order, after the write", async () => {
  expect((await settled("b1", [tag("one"), tag("two")])).seen).toEqual(["handler", "one", "two"]);
});

test("a write that does not apply the changes applies none of their fills", async () => {
  expect((await settled("another", [tag("one")])).seen).toEqual(["handler"]);
});

test("a landing that carries a secret value is not recorded; the result leaves redacted; the focus is written", async () => {
  const out = await settled(
    "b1",
    [],
    { url: `https://app.example.test/?t=${VALUE}`, title: `hi ${VALUE}` },
    false,
  );
  expect(out.url).toBe("https://app.example.test/?t=[hidden]");
  expect(out.title).toBe("hi [hidden]");
  expect(out.record?.history).toEqual([]);
  expect(out.record?.focus).toEqual({ browser: "b1", tab: "t2", frame: null });
  const plain = await settled("b1", [], { url: "https://app.example.test/" }, false);
  expect(plain.record?.history.map((h: { url: string }) => h.url)).toEqual(["https://app.example.test/"]);
});

test("what a fill adds leaves redacted too", async () => {
  const told: Change = (record, _b, fill) => {
    fill((result) => ({ ...result, receipt: `kept ${VALUE}` }));
    return record;
  };
  expect((await settled("b1", [told])).receipt).toBe("kept [hidden]");
});

test("a write for another browser writes no focus", async () => {
  expect((await settled("another", [])).record?.focus).toBeUndefined();
});
