// A secret lives in the page only inside one call (spec §1.17): after a bound write the form that
// held it and the page echoing it give nothing back, and runs of it are never masked anywhere (on
// another page of the same browser or in another workspace, ordinary text holding a run reads whole);
// Back onto a form left by a link finds it empty (Chrome restores nothing); a PDF shows no value; and
// no screen is drawn while a write's value is in (20 writes, polled all along).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Fixture, html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const A = "secrets-browser-a";
const B = "secrets-browser-b";
const KEY = "Rb5Tq8Ln3Vw6Hj2";
// A run of the secret that is neither its start nor its end.
const PIECE = KEY.slice(3, 10);
let server: TestServer;
let site: Fixture;

const call = (workspace: string, path: string, body: unknown = {}) =>
  server.call("POST", path, body, workspace);

beforeAll(async () => {
  site = serveFixture({
    // An API key field; the title says how long its value is (Chrome restores a form after its load),
    // as the value goes in (its input event) and on a timer (a value put back without one).
    "/form": () =>
      html(`<title>Form</title><form action="/other"><label>API key <input id=key name=key></label></form>
<p id=echo></p><a id=away href="/other">away</a><script>const show = () => {
  document.title = "len " + key.value.length; echo.textContent = "echo " + key.value.slice(2, 9); };
key.addEventListener("input", show); setInterval(show, 20);</script>`),
    "/other": () => html(`<title>Other</title><p>elsewhere</p>`),
    // Text that happens to hold a run of the secret.
    "/piece": () => html(`<title>Piece</title><p id=p>code ${PIECE} here</p>`),
  });
  server = await startServer({
    configure: (c) => {
      c.secrets.hold_ms = 100;
      c.secrets.entries = {
        api: {
          description: "the fixture's API key",
          allowed_urls: ["app.example.test"],
          keys: { key: { value: KEY } },
        },
      };
    },
  });
});

afterAll(async () => {
  await endAll(server, [A, B]);
  await server.close();
  site.stop();
});

/** print_page's PDF as text (pdftotext, from Debian's poppler-utils). */
async function printedText(workspace: string): Promise<string> {
  const print = await call(workspace, "/browser/print");
  expect(print.status).toBe(200);
  const pdf = await (await fetch(`${server.url}${print.body.file.url}`)).bytes();
  const out = Bun.spawnSync(["pdftotext", "-", "-"], { stdin: pdf });
  expect(out.exitCode).toBe(0);
  return out.stdout.toString();
}

const write = (workspace: string, submit: unknown = "auto") =>
  call(workspace, "/browser/write", {
    selector: { css: "#key" },
    secret: { name: "api", key: "key" },
    submit,
  });

describe("runs are never masked, and the typed page holds nothing after the write", () => {
  test("the typed page's echo is empty after the write; another page of A, and B, show a run of it whole", async () => {
    expect((await call(A, "/browser/navigate", { url: site.url("/form") })).status).toBe(200);
    expect((await write(A)).status).toBe(200);
    // The page echoed a run of the value while it was in; the field is empty now, and so is the echo.
    const echo = await call(A, "/browser/extract", { selector: { css: "#echo" } });
    expect(echo.body.result).toBe("echo");
    expect((await call(A, "/browser/read")).body.title).toBe("len 0");
    // A page of the same browser that merely holds the same run of characters is ordinary text.
    expect((await call(A, "/browser/navigate", { url: site.url("/piece") })).status).toBe(200);
    const inA = await call(A, "/browser/extract", { selector: { css: "#p" } });
    expect(inA.body.result).toBe(`code ${PIECE} here`);
    const missA = await call(A, "/browser/extract", { selector: { css: `#x${PIECE}` }, timeout: 0.2 });
    expect(missA.status).toBe(400);
    expect(missA.body.error).toContain(PIECE);

    expect((await call(B, "/browser/navigate", { url: site.url("/piece") })).status).toBe(200);
    expect((await call(B, "/browser/extract", { selector: { css: "#p" } })).body.result).toBe(
      `code ${PIECE} here`,
    );
    expect(JSON.stringify((await call(B, "/browser/read")).body)).toContain(PIECE);
    await endAll(server, [A, B]);
  });
});

describe("a form left and come back to", () => {
  test("a write whose submit is a link away: Back onto the form finds it empty, scripts read nothing, the PDF shows nothing", async () => {
    expect((await call(A, "/browser/navigate", { url: site.url("/form") })).status).toBe(200);
    const away = await write(A, { css: "#away" });
    expect(away.status).toBe(200);
    expect(away.body).toMatchObject({ url: site.url("/other"), title: "Other" });
    expect((await call(A, "/browser/navigate", { back: true })).status).toBe(200);
    // Chrome restores a form's values on Back: there is nothing to restore. Watched a while (the
    // page shows the length on a timer too).
    const title = async () => (await call(A, "/browser/read")).body.title;
    for (let i = 0; i < 10; i++) {
      expect(await title()).toBe("len 0");
      await Bun.sleep(100);
    }
    const script = await call(A, "/browser/script", { script: "document.getElementById('key').value" });
    expect(script.status).toBe(200);
    expect(script.body.result).toBe("");
    const value = await call(A, "/browser/extract", { selector: { css: "#key" }, get: "value" });
    expect(value.body.result).toBe("");
    const read = JSON.stringify((await call(A, "/browser/read")).body);
    for (let i = 0; i + 4 <= KEY.length; i++) expect(read).not.toContain(KEY.slice(i, i + 4));
    const text = await printedText(A);
    expect(text).toContain("API key");
    for (let i = 0; i + 4 <= KEY.length; i++) expect(text).not.toContain(KEY.slice(i, i + 4));
  });

  test("the form sent with Enter (a GET): the landing URL is [hidden], and Back finds the field empty", async () => {
    expect((await call(A, "/browser/navigate", { url: site.url("/form") })).status).toBe(200);
    const sent = await write(A, true);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ url: `${site.url("/other")}?key=[hidden]`, title: "Other" });
    expect((await call(A, "/browser/navigate", { back: true })).status).toBe(200);
    for (let i = 0; i < 10; i++) {
      expect((await call(A, "/browser/read")).body.title).toBe("len 0");
      await Bun.sleep(100);
    }
  });
});

describe("screens around writes", () => {
  test("polling the live screen while 20 writes run: screens are drawn, none while a value is in", async () => {
    expect((await call(A, "/browser/navigate", { url: site.url("/form") })).status).toBe(200);
    const live = server.app.services.timeline.live;
    const stopWatch = live.watch(A, () => undefined);
    let polling = true;
    let looks = 0;
    const poll = (async () => {
      while (polling) {
        await live.frame(A);
        looks++;
        // A look answered from memory (a write under way) must still let the write's own work run.
        await Bun.sleep(5);
      }
    })();
    try {
      for (let i = 0; i < 20; i++) {
        expect((await write(A)).status).toBe(200);
        await Bun.sleep(20);
      }
    } finally {
      polling = false;
      stopWatch();
      await poll;
    }
    const id = (await server.app.services.store.get(A))?.session_id as string;
    const held = await server.app.services.workspaces.connections.get(id);
    expect(looks).toBeGreaterThan(20);
    expect(held.quiet.screens.drawn).toBeGreaterThan(20);
    expect(held.quiet.screens.midWrite).toBe(0);
    // The page holds nothing of the secret now: a print shows the page without it.
    const text = await printedText(A);
    expect(text).toContain("API key");
    expect(text).not.toContain(KEY);
  });
});
