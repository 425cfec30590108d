// A person takes over (spec §1.17): the agent's calls on the workspace wait for Hand back, and a
// password field the person filled and did not send is emptied at Hand back; what the person typed
// elsewhere stays. The 409 after the wait is in test/unit/person/takeover.test.ts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const W = "take-over";
const site = serveFixture({
  "/signin": () =>
    html(`<title>Sign in</title><style>input{display:block;width:300px;height:30px;margin:20px}</style>
<form action="/next" method="post"><input id="user" aria-label="User"><input id="pw" type="password" aria-label="Password"></form>`),
});
let server: TestServer;

const call = (path: string, body: unknown = {}) => server.call("POST", path, body, W);
const admin = (what: string, body: unknown = {}) =>
  server.call("POST", `/admin/workspaces/${W}/${what}`, body, null);
const script = async (s: string) => (await call("/browser/script", { script: s })).body.result;

/** The middle of a field, in viewport pixels, as the person's picture would give it. */
async function middle(label: string): Promise<{ x: number; y: number }> {
  const box = (await call("/browser/extract", { selector: { label }, get: "box" })).body.result;
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

beforeAll(async () => {
  server = await startServer({ dataDir: false });
});
afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

test("the agent waits while a person drives; Hand back empties the password they did not send", async () => {
  await call("/browser/navigate", { url: site.url("/signin") });
  const user = await middle("User");
  const pw = await middle("Password");
  const took = await admin("take-over", { name: "Ada (support)" });
  expect(took.status).toBe(200);
  expect(took.body.taken_over.by).toBe("Ada (support)");
  expect((await server.call("GET", `/admin/workspaces/${W}`, undefined, null)).body.taken_over?.by).toBe(
    "Ada (support)",
  );

  // The agent's call comes in while the person drives: it waits.
  let agentDone = 0;
  const agent = call("/browser/extract", { selector: { label: "User" }, get: "value" }).then((r) => {
    agentDone = Date.now();
    return r;
  });
  for (const [at, text] of [
    [user, "ada@example.test"],
    [pw, "person-typed-99"],
  ] as const) {
    expect((await admin("input", { click: at })).status).toBe(200);
    expect((await admin("input", { text })).status).toBe(200);
  }
  await Bun.sleep(300);
  expect(agentDone).toBe(0);
  const handedAt = Date.now();
  const back = await admin("hand-back");
  expect(back.status).toBe(200);
  expect(back.body).toEqual({ handed_back: true, emptied: 1 });
  const got = await agent;
  expect(got.status).toBe(200);
  expect(agentDone).toBeGreaterThanOrEqual(handedAt);
  // What the person typed in the user field stays; their password, never sent, is gone.
  expect(JSON.stringify(got.body)).toContain("ada@example.test");
  expect(await script("document.getElementById('pw').value")).toBe("");
  expect((await server.call("GET", `/admin/workspaces/${W}`, undefined, null)).body.taken_over).toBeNull();
});
