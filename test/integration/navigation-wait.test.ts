// A gesture that sends the page elsewhere answers with the page it lands on, even when the
// navigation begins after WebDriver has answered the gesture and the next page is slow to come.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { html, serveFixture } from "../support/fixtures.ts";
import { endAll, startServer, type TestServer } from "../support/server.ts";

const slow = async (title: string) => {
  await Bun.sleep(600);
  return html(`<title>${title}</title><h1>${title}</h1>`);
};
const site = serveFixture({
  "/": () =>
    html(`<title>Start</title>
<form action="/sent" method="get"><label for="q">Query</label><input id="q" name="q"><button>Send</button></form>
<a href="/linked">Onwards</a><a href="#here">Stay</a><p id="here">here</p>`),
  // A menu opened by a javascript:void(0) link, as older sites write them; the page moves on by
  // itself 900 ms later (within the second a followed link is waited for).
  "/menu": () =>
    html(`<title>Menu</title><a href="javascript:void(0)" onclick="document.getElementById('m').hidden = false; setTimeout(() => location.assign('/linked'), 900)">Products</a>
<a href="/menu#m" onclick="setTimeout(() => location.assign('/linked'), 900)">Jump to the menu</a>
<ul id=m hidden><li>Tea</li></ul>`),
  "/sent": () => slow("Sent"),
  "/linked": () => slow("Linked"),
});
let server: TestServer;
const W = "nav-wait";

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await endAll(server, [W]);
  await server.close();
  site.stop();
});

const call = (path: string, body: unknown) => server.call("POST", path, body, W);

test("a submit by click, a submit by Enter and a followed link each answer with the new page", async () => {
  await call("/browser/navigate", { url: site.url("/") });
  const clicked = await call("/browser/interact/click", { selector: { role: "button", name: "Send" } });
  expect(clicked.body.title).toBe("Sent");

  await call("/browser/navigate", { url: site.url("/") });
  const entered = await call("/browser/write", { selector: { label: "Query" }, text: "tea", submit: true });
  expect(entered.body).toMatchObject({ title: "Sent", url: site.url("/sent?q=tea") });

  await call("/browser/navigate", { url: site.url("/") });
  const followed = await call("/browser/interact/click", { selector: { text: "Onwards" } });
  expect(followed.body.title).toBe("Linked");
}, 60_000);

test("a link within the page stays on it", async () => {
  await call("/browser/navigate", { url: site.url("/") });
  const stayed = await call("/browser/interact/click", { selector: { text: "Stay" } });
  expect(stayed.body).toMatchObject({ title: "Start", url: site.url("/#here") });
}, 60_000);

test("a javascript: link runs its script and answers on its page at once: no navigation is awaited", async () => {
  await call("/browser/navigate", { url: site.url("/menu") });
  const opened = await call("/browser/interact/click", { selector: { text: "Products" } });
  expect(opened.body).toEqual({ url: site.url("/menu"), title: "Menu" });
  const menu = await call("/browser/extract", { selector: { text: "Tea" } });
  expect(menu.body.result).toBe("Tea");
}, 60_000);

test("a link to a fragment of this very page, written whole (/menu#m), scrolls and answers at once", async () => {
  await call("/browser/navigate", { url: site.url("/menu") });
  const jumped = await call("/browser/interact/click", { selector: { text: "Jump to the menu" } });
  expect(jumped.body).toEqual({ url: site.url("/menu#m"), title: "Menu" });
}, 60_000);
