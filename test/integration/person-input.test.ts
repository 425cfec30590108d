// A person drives the browser over POST /admin/workspaces/{key}/input while the agent's ask_human
// waits: a click at viewport pixels, text, a key and a scroll land on the page; each is a timeline
// entry with surface person that keeps typed text as its length only; no token is a 401 and a
// signed-in change from a foreign Origin a 403.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer, TOKEN } from "../support/server.ts";

const W = "person-input";
const TYPED = "hello person 42";
// The title tells what reached the page: clicks, the field's value, the keys, the scroll.
const PAGE = `<title>start</title><style>body{margin:0;height:4000px}
#b{position:absolute;left:20px;top:20px;width:120px;height:40px}
#f{position:absolute;left:20px;top:100px;width:200px}</style>
<button id="b">Press me</button><input id="f" autofocus>
<script>
const s = {clicks: 0, keys: []};
const show = () => document.title = "clicks=" + s.clicks + " value=" + f.value.length + " keys=" + s.keys.join(",") + " y=" + Math.round(scrollY);
b.addEventListener("click", () => { s.clicks++; show(); f.focus(); });
f.addEventListener("input", show);
addEventListener("keydown", (e) => { if (e.key === "Enter") { s.keys.push(e.key); show(); } });
addEventListener("scroll", show);
</script>`;
const site = serveFixture({ "/": () => html(PAGE) });
let server: TestServer;

const input = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) =>
  fetch(`${server.url}/admin/workspaces/${W}/input`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  server = await startServer({ dataDir: false });
  await server.call("POST", "/browser/navigate", { url: site.url("/") }, W);
});

afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

test("click, text, key and scroll land on the page while the agent's ask_human waits", async () => {
  const asked = server.call("POST", "/browser/ask-human", { question: "Press the button for me" }, W);
  for (
    let i = 0;
    i < 100 && !(await server.call("GET", `/admin/workspaces/${W}`, undefined, null)).body.waiting;
    i++
  )
    await Bun.sleep(50);

  const click = await input({ click: { x: 80, y: 40 } });
  expect(click.status).toBe(200);
  expect(await click.json()).toEqual({ url: site.url("/"), title: "clicks=1 value=0 keys= y=0" });
  const text = await (await input({ text: TYPED })).json();
  expect(text.title).toBe(`clicks=1 value=${TYPED.length} keys= y=0`);
  const key = await (await input({ key: "Enter" })).json();
  expect(key.title).toBe(`clicks=1 value=${TYPED.length} keys=Enter y=0`);
  const scroll = await input({ scroll: { x: 300, y: 300, dx: 0, dy: 600 } });
  expect(scroll.status).toBe(200);
  // A wheel scroll may land a frame after the input answers.
  let title = "";
  for (let i = 0; i < 40 && !title.endsWith("y=600"); i++) {
    title =
      (await server.call("POST", "/browser/extract", { selector: { css: "title" } }, W)).body.result ?? "";
    if (!title.endsWith("y=600")) await Bun.sleep(50);
  }
  expect(title).toBe(`clicks=1 value=${TYPED.length} keys=Enter y=600`);

  // What the person typed is in the page as they typed it: nothing marks or masks it (spec §1.17);
  // only the timeline keeps it as its length.
  const field = await server.call("POST", "/browser/extract", { selector: { css: "#f" }, get: "value" }, W);
  expect(field.body.result).toBe(TYPED);
  expect((await server.call("POST", `/admin/workspaces/${W}/answer`, { text: "done" }, null)).status).toBe(
    200,
  );
  expect((await asked).body).toMatchObject({ answered: true, answer: "done", url: site.url("/") });

  const timeline = await server.call("GET", `/admin/workspaces/${W}/timeline?limit=50`, undefined, null);
  const person = timeline.body.entries.filter((e: any) => e.surface === "person");
  expect(person.map((e: any) => Object.keys(e.args)[0])).toEqual(["scroll", "key", "typed", "click"]);
  expect(person.find((e: any) => e.args.typed).args).toEqual({ typed: `typed ${TYPED.length} characters` });
  expect(JSON.stringify(timeline.body)).not.toContain(TYPED);
}, 90_000);

test("exactly one input: none or two is a 400 naming what to send", async () => {
  const none = await input({});
  expect(none.status).toBe(400);
  expect((await none.json()).error).toContain("exactly one of click");
  const two = await input({ text: "a", key: "Enter" });
  expect(two.status).toBe(400);
  const bad = await input({ click: { x: 1 } });
  expect(bad.status).toBe(400);
  expect((await bad.json()).error).toContain("click.y");
  const long = await input({ text: "x".repeat(2001) });
  expect(long.status).toBe(400);
  // A name every object has is no kind of input: a 400 saying what to send, never a 500.
  for (const raw of ['{"constructor":{"x":1}}', '{"__proto__":{"x":1,"y":1}}']) {
    const res = await input(JSON.parse(raw));
    expect(res.status).toBe(400);
    expect((await res.json()).error).toContain("exactly one of click");
  }
});

test("a workspace that is not there is a 404 whatever the body, and nothing is made for it", async () => {
  for (const key of ["person-nowhere", "a..b"]) {
    for (const body of [{ click: { x: 1, y: 1 } }, { click: { x: 1 } }, {}]) {
      const res = await fetch(`${server.url}/admin/workspaces/${key}/input`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify(body),
      });
      expect([res.status, (await res.json()).error]).toEqual([404, `no workspace ${key}`]);
    }
  }
  expect((await server.call("GET", "/admin/workspaces/person-nowhere", undefined, null)).status).toBe(404);
  // The workspace there, the same bad body is the 400 it was.
  expect((await input({ click: { x: 1 } })).status).toBe(400);
});

test("without a token a 401; signed in, from a foreign Origin a 403", async () => {
  expect((await input({ key: "Enter" }, {})).status).toBe(401);
  const signIn = await fetch(`${server.url}/ui/sign-in`, {
    method: "POST",
    body: new URLSearchParams({ token: TOKEN }),
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.url },
    redirect: "manual",
  });
  const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
  expect(cookie).toContain("=");
  const forged = await input({ key: "Enter" }, { cookie, origin: "http://evil.example.test" });
  expect(forged.status).toBe(403);
  const own = await input({ key: "Enter" }, { cookie, origin: server.url });
  expect(own.status).toBe(200);
});
