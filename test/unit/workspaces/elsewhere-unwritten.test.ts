import { beforeEach, expect, mock, spyOn, test } from "bun:test";
import { PagesElsewhere } from "../../../src/grid/elsewhere.ts";
import type { Services } from "../../../src/services.ts";
import { openStore } from "../../../src/store/index.ts";
import { goAction as go } from "../../support/actions.ts";
import { FakeGrid } from "../../support/fake-grid.ts";
import { testServices } from "../../support/services.ts";

const W = "w";
const URL1 = "https://app.example.test/one";
let services: Services;
beforeEach(async () => {
  services = testServices({ store: await openStore({ ttl: 86_400 }), grid: new FakeGrid().grid, hooks: {} });
});
const invoke = (call: Parameters<Services["workspaces"]["calls"]["invoke"]>[0]) =>
  services.workspaces.calls.invoke(call);

test("pages loaded in other tabs are not forgotten when the call's settle write fails (they were never recorded)", async () => {
  await invoke({ surface: "mcp", workspace: W, action: go, args: { url: URL1 } });
  await services.workspaces.calls.recorded(W);
  const forget = mock(() => {});
  const looks = spyOn(PagesElsewhere.prototype, "pending").mockReturnValue({
    urls: ["https://pop.example.test/cb?code=1"],
    recorded: forget,
  });
  const update = services.store.update.bind(services.store);
  const writes = spyOn(services.store, "update").mockImplementation((key, fn, opts) =>
    opts?.fence ? Promise.reject(new Error("the store did not answer")) : update(key, fn, opts),
  );
  try {
    const err = await invoke({ surface: "mcp", workspace: W, action: go, args: { url: `${URL1}?2` } }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    await services.workspaces.calls.recorded(W);
    expect(looks).toHaveBeenCalledTimes(1);
    expect((await services.store.get(W))?.history.map((h) => h.url)).not.toContain(
      "https://pop.example.test/cb",
    );
    // Never written: kept for the next call's write.
    expect(forget).toHaveBeenCalledTimes(0);
  } finally {
    looks.mockRestore();
    writes.mockRestore();
  }
});
