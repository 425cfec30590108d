// Pages loaded in other tabs join the history (src/grid/elsewhere.ts, src/workspaces/settle.ts):
// top-level ones and frames (any tab's), not the agent's tab's page, not the server's spare tabs;
// below the agent's page.
import { expect, test } from "bun:test";
import { PagesElsewhere } from "../../../src/grid/elsewhere.ts";
import { SPARE_PATH } from "../../../src/grid/net-rules.ts";
import { emptyRecord } from "../../../src/store/record.ts";
import { joinedBelow } from "../../../src/workspaces/settle.ts";
import { FakeSocket } from "../../support/fake-socket.ts";

test("top-level loads in other tabs are recorded once, newest per origin, frames too; spare tabs and the agent's page are not", () => {
  const s = new FakeSocket();
  const pages = new PagesElsewhere(s.socket);
  pages.knowRoots([{ context: "AGENT" }, { context: "OLD" }]);
  s.emit("browsingContext.contextCreated", { context: "POP", parent: null, url: "about:blank" });
  s.emit("browsingContext.contextCreated", { context: "FRAME", parent: "POP", url: "about:blank" });
  s.emit("browsingContext.contextCreated", { context: "AGENT_FRAME", parent: "AGENT", url: "about:blank" });
  const load = (context: string, url: string) =>
    s.emit("browsingContext.load", { context, url, navigation: "n" });
  load("AGENT", "https://agent.example.test/");
  load("POP", "https://idp.example.test/login");
  load("FRAME", "https://ads.example.test/frame");
  load("AGENT_FRAME", "https://widget.example.test/w");
  load("POP", "https://idp.example.test/done?code=1");
  load("OLD", `https://spare.example.test${SPARE_PATH}`);
  load("UNKNOWN", "https://unknown.example.test/");
  load("OLD", "https://old.example.test/a");
  const first = pages.pending("AGENT");
  expect(first.urls).toEqual([
    "https://ads.example.test/frame",
    "https://widget.example.test/w",
    "https://idp.example.test/done?code=1",
    "https://old.example.test/a",
  ]);
  // A look changes nothing; the pages go once their write is done, and one loaded since stays.
  expect(pages.pending("AGENT").urls).toHaveLength(4);
  load("POP", "https://idp.example.test/after");
  first.recorded();
  expect(pages.pending("AGENT").urls).toEqual(["https://idp.example.test/after"]);
  pages.pending("AGENT").recorded();
  expect(pages.pending("AGENT").urls).toEqual([]);
});

test("joined pages go below the agent's page, as origin + path, never over it", () => {
  const r = {
    ...emptyRecord(),
    history: [
      { origin: "https://app.example.test", url: "https://app.example.test/home?x=1", at: 10 },
      { origin: "https://idp.example.test", url: "https://idp.example.test/old", at: 5 },
    ],
  };
  const next = joinedBelow(
    r,
    ["https://idp.example.test/cb?code=secret", "https://app.example.test/other"],
    20,
    86_400,
  );
  expect(next.history).toEqual([
    { origin: "https://app.example.test", url: "https://app.example.test/home?x=1", at: 10 },
    { origin: "https://idp.example.test", url: "https://idp.example.test/cb", at: 20 },
  ]);
  expect(joinedBelow(emptyRecord(), ["https://idp.example.test/"], 20, 86_400).history).toEqual([]);
});
