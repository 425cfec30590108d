// The hint relay: what the page's world reports through the hint channel goes to the sandbox of the
// same document, in chunks, in the background; nothing else in a report is taken (a page can send
// anything through its own calls of the wrapped functions); a tab that cannot take a script waits;
// a read waits a moment for a page just loaded to say its hints are sent, never for a flood; what a
// page reports waits a moment before it goes, for a read that comes then to take it along itself.
import { expect, test } from "bun:test";
import { HINT_CHANNEL, HINT_PRELOAD, HintRelay, hintTakes } from "../../../src/grid/hint-relay.ts";
import { FakeSocket } from "../../support/fake-socket.ts";

const node = (id: string, value: Record<string, unknown> = {}) => ({ type: "node", sharedId: id, value });
const arr = (...value: unknown[]) => ({ type: "array", value });
const report = (clicks: unknown[], drops: unknown[] = [], hosts: unknown[] = [], loaded = false) =>
  arr(arr(...clicks), arr(...drops), arr(...hosts), { type: "boolean", value: loaded });
const message = (context: string, data: unknown, channel = HINT_CHANNEL) => ({
  channel,
  data,
  source: { realm: "r1", context },
});
const calls = (s: FakeSocket) => s.sent.filter((c) => c.method === "script.callFunction");
// The node references handed over so far, counted from outside.
const handed = (s: FakeSocket) =>
  calls(s).flatMap((c: any) => c.params.arguments.slice(1).map((a: any) => a.sharedId));

test("a report names elements, groups under an ancestor, and closed roots with their hosts; nothing else", () => {
  const closed = node("host", { shadowRoot: node("root", { mode: "closed" }) });
  const open = node("open-host", { shadowRoot: node("open-root", { mode: "open" }) });
  const takes = hintTakes(
    report(
      [
        node("a"),
        arr(node("list"), { type: "string", value: "0:div#r0;1:div#r1" }),
        { type: "string", value: "x" },
      ],
      [node("zone"), arr(node("no-paths"))],
      [closed, open, arr(node("h"), { type: "string", value: "0:div" })],
    ) as never,
  );
  expect(takes).toEqual([
    { kind: 0, paths: null, ids: ["a"] },
    { kind: 0, paths: "0:div#r0;1:div#r1", ids: ["list"] },
    { kind: 1, paths: null, ids: ["zone"] },
    { kind: 2, paths: null, ids: ["host", "root"] },
  ]);
  expect(hintTakes({ type: "string", value: "junk" } as never)).toEqual([]);
});

test("the recorder runs in the page's own world and reports on the hint channel, roots serialized", () => {
  expect(HINT_PRELOAD.sandbox).toBeUndefined();
  expect(HINT_PRELOAD.arguments).toEqual([
    {
      type: "channel",
      value: { channel: HINT_CHANNEL, serializationOptions: { maxDomDepth: 0, includeShadowTree: "all" } },
    },
  ]);
  expect(HINT_PRELOAD.functionDeclaration).toContain("addEventListener");
});

test("hints go to the sandbox of the reporting context, a chunk at a time; a held context waits", async () => {
  const s = new FakeSocket(() => ({ type: "success", result: { type: "number", value: 1 }, realm: "r" }));
  let held = true;
  const relay = new HintRelay(s.socket, () => held);
  const ids = Array.from({ length: 250 }, (_, i) => node(`n${i}`));
  s.emit("script.message", message("CTX", report(ids)));
  s.emit("script.message", message("CTX", report([node("other")]), "someone-else"));
  await relay.handOver(50);
  expect(s.sent.filter((c) => c.method === "script.callFunction")).toHaveLength(0);
  held = false;
  expect(await relay.handOver(1_000)).toBe(true);
  const calls = s.sent.filter((c) => c.method === "script.callFunction").map((c) => c.params as any);
  expect(calls.map((c) => c.arguments.length - 1)).toEqual(Array(10).fill(25));
  expect(calls[0].target).toEqual({ context: "CTX", sandbox: "selenium-flow" });
  expect(JSON.parse(calls[0].arguments[0].value)).toHaveLength(25);
  expect(calls[9].arguments.at(-1)).toEqual({ sharedId: "n249" });
  expect(handed(s)).toEqual(ids.map((n) => n.sharedId));
});

test("while a read walks the page the relay hands nothing over, and goes on after it", async () => {
  const s = new FakeSocket(() => ({ type: "success", result: { type: "number", value: 1 }, realm: "r" }));
  const relay = new HintRelay(s.socket, () => false);
  const goOn = relay.pauseFor();
  s.emit("script.message", message("CTX", report(Array.from({ length: 60 }, (_, i) => node(`n${i}`)))));
  await Bun.sleep(20);
  expect(s.sent.filter((c) => c.method === "script.callFunction")).toHaveLength(0);
  goOn();
  goOn(); // a second call changes nothing
  await Bun.sleep(100);
  expect(s.sent.filter((c) => c.method === "script.callFunction")).toHaveLength(3);
  expect(handed(s)).toHaveLength(60);
});

test("a read waits for a page just loaded to say its hints are sent, but never for a flood", async () => {
  const s = new FakeSocket(async () => {
    await Bun.sleep(30);
    return { type: "success", result: { type: "number", value: 1 }, realm: "r" };
  });
  const relay = new HintRelay(s.socket, () => false);
  // No recorder: nothing is ever waited for.
  s.emit("browsingContext.navigationStarted", {
    context: "TAB",
    navigation: "n1",
    url: "http://a.example.test/",
  });
  let t = performance.now();
  await relay.reported("TAB", 300);
  expect(performance.now() - t).toBeLessThan(50);
  relay.recording = true;
  s.emit("browsingContext.navigationStarted", {
    context: "TAB",
    navigation: "n2",
    url: "http://a.example.test/",
  });
  t = performance.now();
  setTimeout(() => s.emit("script.message", message("TAB", report([node("x")], [], [], true))), 60);
  await relay.reported("TAB", 300);
  expect(performance.now() - t).toBeGreaterThanOrEqual(55);
  expect(performance.now() - t).toBeLessThan(250);
  expect(await relay.handOver(300)).toBe(true);
  // A page that never says so is waited for at most the time given.
  s.emit("browsingContext.navigationStarted", {
    context: "TAB",
    navigation: "n3",
    url: "http://a.example.test/",
  });
  t = performance.now();
  await relay.reported("TAB", 80);
  expect(performance.now() - t).toBeGreaterThanOrEqual(75);
  // A flood is not waited for: more than `few` waiting answers at once.
  s.emit("script.message", message("TAB", report(Array.from({ length: 300 }, (_, i) => node(`f${i}`)))));
  t = performance.now();
  expect(await relay.handOver(1_000, 200)).toBe(false);
  expect(performance.now() - t).toBeLessThan(20);
});

test("what a page reports goes a moment later, counted again from the report that says it is loaded", async () => {
  const s = new FakeSocket(() => ({ type: "success", result: { type: "number", value: 1 }, realm: "r" }));
  new HintRelay(s.socket, () => false);
  s.emit("script.message", message("CTX", report([node("a")])));
  await Bun.sleep(30);
  expect(calls(s)).toHaveLength(0);
  s.emit("script.message", message("CTX", report([], [], [], true)));
  await Bun.sleep(35);
  expect(calls(s)).toHaveLength(0);
  await Bun.sleep(60);
  expect(calls(s)).toHaveLength(1);
  expect(handed(s)).toEqual(["a"]);
});

test("a read takes its document's hints along (the chunk under way too); the relay sends them no more; given back, they go", async () => {
  let answer: () => void = () => {};
  const s = new FakeSocket(
    () =>
      new Promise((resolve) => {
        answer = () => resolve({ type: "success", result: { type: "number", value: 1 }, realm: "r" });
      }),
  );
  const relay = new HintRelay(s.socket, () => false);
  s.emit(
    "script.message",
    message("CTX", report([node("a"), arr(node("list"), { type: "string", value: "0:div" })])),
  );
  s.emit("script.message", message("FRAME", report([node("f")])));
  // Another document's are handed over at once; the reading one's are left to the read.
  const done = relay.handOver(300, 200, "CTX");
  await Bun.sleep(5);
  expect(calls(s).map((c: any) => c.params.target.context)).toEqual(["FRAME"]);
  answer();
  expect(await done).toBe(true);
  const claim = relay.claim("CTX", 200);
  expect(claim?.ids).toEqual(["a", "list"]);
  expect(JSON.parse(claim?.takes ?? "")).toEqual([
    [0, null],
    [0, "0:div"],
  ]);
  expect(relay.claim("CTX", 200)).toBeNull();
  await Bun.sleep(80);
  expect(calls(s)).toHaveLength(1);
  // Given back (the read did not go), they go after all.
  claim?.giveBack();
  await Bun.sleep(5);
  expect(calls(s)).toHaveLength(2);
  expect((calls(s)[1] as any).params.arguments.slice(1)).toEqual([{ sharedId: "a" }, { sharedId: "list" }]);
  // Under way, a read takes them along as well (the browser may run the read first).
  expect(relay.claim("CTX", 200)?.ids).toEqual(["a", "list"]);
  answer();
  await Bun.sleep(5);
  // More than `few`: left to the relay.
  s.emit("script.message", message("CTX", report(Array.from({ length: 30 }, (_, i) => node(`n${i}`)))));
  expect(relay.claim("CTX", 20)).toBeNull();
  // Still waiting, all of them: a read that takes more takes them.
  expect(relay.claim("CTX", 30)?.ids).toHaveLength(30);
});
