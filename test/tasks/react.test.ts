// An agent's hands on a real React 18 app (react-dom as its authors ship it, test/fixtures/vendor):
// controlled fields keep what React's own event system saw, not what the DOM was given. Each field is
// found by ref or label from read_page, over MCP, and the app's state is read from what React renders.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Peer, peer } from "../support/peer.ts";
import { vendor } from "../support/task-pages.ts";

let p: Peer;
const W = "tasks-react";

const APP = `<title>Order</title><div id=root></div>
<script src="/vendor/react.production.min.js"></script><script src="/vendor/react-dom.production.min.js"></script>
<script>
const h = React.createElement;
function App() {
  const [name, setName] = React.useState("");
  const [notes, setNotes] = React.useState("");
  const [size, setSize] = React.useState("m");
  const [gift, setGift] = React.useState(false);
  const [ship, setShip] = React.useState("post");
  const [qty, setQty] = React.useState("1");
  const [items, setItems] = React.useState(["Tea", "Milk"]);
  const [draft, setDraft] = React.useState("");
  const [sent, setSent] = React.useState(null);
  const [open, setOpen] = React.useState(false);
  const state = { name, notes, size, gift, ship, qty, items, sent };
  return h("main", null,
    h("h1", null, "Order"),
    h("form", { onSubmit: (e) => { e.preventDefault(); setSent(name + "/" + qty); } },
      h("label", null, "Full name ", h("input", { value: name, onChange: (e) => setName(e.target.value.toUpperCase()) })),
      h("label", null, "Notes ", h("textarea", { value: notes, onChange: (e) => setNotes(e.target.value) })),
      h("label", null, "Size ", h("select", { value: size, onChange: (e) => setSize(e.target.value) },
        h("option", { value: "s" }, "Small"), h("option", { value: "m" }, "Medium"), h("option", { value: "l" }, "Large"))),
      h("label", null, h("input", { type: "checkbox", checked: gift, onChange: (e) => setGift(e.target.checked) }), " Gift wrap"),
      h("fieldset", null, h("legend", null, "Shipping"),
        h("label", null, h("input", { type: "radio", name: "ship", checked: ship === "post", onChange: () => setShip("post") }), " Post"),
        h("label", null, h("input", { type: "radio", name: "ship", checked: ship === "courier", onChange: () => setShip("courier") }), " Courier")),
      h("label", null, "Quantity ", h("input", { type: "number", min: 1, max: 9, value: qty, onChange: (e) => setQty(e.target.value) })),
      h("button", { type: "submit", disabled: !name }, "Place order")),
    h("section", { "aria-label": "List" },
      h("ul", null, items.map((it, i) => h("li", { key: it }, it, " ",
        h("button", { "aria-label": "Remove " + it, onClick: () => setItems(items.filter((_, j) => j !== i)) }, "×")))),
      h("input", { "aria-label": "New item", value: draft, onChange: (e) => setDraft(e.target.value),
        onKeyDown: (e) => { if (e.key === "Enter" && draft) { setItems([...items, draft]); setDraft(""); } } })),
    h("button", { onClick: () => setOpen(true) }, "Terms"),
    open && h("div", { role: "dialog", "aria-label": "Terms" }, h("p", null, "Be kind."), h("button", { onClick: () => setOpen(false) }, "Close")),
    h("pre", { id: "state" }, JSON.stringify(state)));
}
ReactDOM.createRoot(document.getElementById("root")).render(h(App));
</script>`;

// A realistic password: common words, a year, and the site's own name in it.
const PASSWORD = "Example-2024-Summer!";

// A React sign-in: the password is React state; the app checks it and swaps the form for its
// dashboard in the same document, which names the site's host as plain text.
const SIGN_IN = `<title>Example App</title><div id=root></div>
<script src="/vendor/react.production.min.js"></script><script src="/vendor/react-dom.production.min.js"></script>
<script>
const h = React.createElement;
function App() {
  const [user, setUser] = React.useState("");
  const [pw, setPw] = React.useState("");
  const [me, setMe] = React.useState(null);
  if (me) return h("main", null, h("h1", null, "Welcome, " + me), h("p", null, "You are signed in to app.example.test since 2024."));
  return h("form", { onSubmit: (e) => { e.preventDefault(); if (pw === ${JSON.stringify(PASSWORD)}) setMe(user); } },
    h("label", null, "Email ", h("input", { value: user, onChange: (e) => setUser(e.target.value) })),
    h("label", null, "Password ", h("input", { type: "password", value: pw, onChange: (e) => setPw(e.target.value) })),
    h("p", { id: "len" }, pw.length + " characters"),
    h("button", null, "Sign in"));
}
ReactDOM.createRoot(document.getElementById("root")).render(h(App));
</script>`;

beforeAll(async () => {
  p = await peer(
    W,
    {
      "/vendor/react.production.min.js": () => vendor("react.production.min.js", "text/javascript"),
      "/vendor/react-dom.production.min.js": () => vendor("react-dom.production.min.js", "text/javascript"),
    },
    {
      configure: (c) => {
        c.secrets.hold_ms = 300;
        c.secrets.entries = {
          app: {
            description: "the app's sign-in",
            allowed_urls: ["app.example.test"],
            keys: { password: { value: PASSWORD }, wrong: { value: "Wrong-2024-Winter!" } },
          },
        };
      },
    },
  );
  p.page("/order", APP);
  p.page("/sign-in", SIGN_IN);
}, 120_000);
afterAll(() => p.close());

const state = async () =>
  JSON.parse((await p.tool("extract", { selector: { css: "#state" } })).result as string) as Record<
    string,
    unknown
  >;

test("controlled fields take what write, select, check and press give them, as React's events saw it", async () => {
  const read = await p.tool("read_page", { url: p.site.url("/order") });
  const names = (read.elements as { name?: string }[]).map((e) => e.name);
  expect(names).toEqual(
    expect.arrayContaining([
      "Full name",
      "Notes",
      "Size",
      "Gift wrap",
      "Post",
      "Courier",
      "Quantity",
      "Place order",
      "Remove Tea",
      "New item",
      "Terms",
    ]),
  );
  // React rewrites the name as it is typed (upper case): the field shows React's value, not ours.
  await p.tool("write", { selector: { label: "Full name" }, text: "Ann Lee" });
  await p.tool("write", { selector: { label: "Notes" }, text: "Leave at the door.\nRing twice." });
  expect(
    (await p.tool("interact", { action: "select", selector: { label: "Size" }, value: "Large" })).selected,
  ).toEqual({ label: "Large", value: "l" });
  expect((await p.tool("interact", { action: "check", selector: { label: "Gift wrap" } })).checked).toBe(
    true,
  );
  expect((await p.tool("interact", { action: "check", selector: { label: "Courier" } })).checked).toBe(true);
  await p.tool("write", { selector: { label: "Quantity" }, text: "3" });
  expect(await state()).toEqual({
    name: "ANN LEE",
    notes: "Leave at the door.\nRing twice.",
    size: "l",
    gift: true,
    ship: "courier",
    qty: "3",
    items: ["Tea", "Milk"],
    sent: null,
  });
  // Clearing a controlled field clears React's state too, and write's submit sends React's form.
  await p.tool("write", { selector: { label: "Full name" }, text: "Bo", submit: true });
  expect(await state()).toMatchObject({ name: "BO", sent: "BO/3" });
  expect((await p.tool("extract", { selector: { label: "Full name" }, get: "value" })).result).toBe("BO");
  expect((await p.tool("interact", { action: "uncheck", selector: { label: "Gift wrap" } })).checked).toBe(
    false,
  );
  expect((await state()).gift).toBe(false);
});

test("a list React re-renders: an item added with Enter, one removed by its ref; a dialog it renders opens and closes", async () => {
  await p.tool("write", { selector: { label: "New item" }, text: "Bread" });
  await p.tool("interact", { action: "press", selector: { label: "New item" }, keys: "Enter" });
  expect((await state()).items).toEqual(["Tea", "Milk", "Bread"]);
  await p.tool("interact", { action: "click", selector: { ref: await p.ref("Remove Milk") } });
  expect((await state()).items).toEqual(["Tea", "Bread"]);
  await p.tool("interact", { action: "click", selector: { role: "button", name: "Terms" } });
  const read = await p.tool("read_page");
  expect(read.text).toContain("Be kind.");
  await p.tool("interact", { action: "click", selector: { role: "button", name: "Close" } });
  expect((await p.tool("read_page")).text).not.toContain("Be kind.");
});

test("a secret typed into React's password field signs in; the dashboard after it reads whole, the site's name unmasked", async () => {
  const url = p.site.url("/sign-in", "app.example.test");
  await p.tool("navigate", { url });
  // A wrong password first: the app keeps its form, and React's state followed the emptying (its
  // length shows none).
  const wrong = await p.tool("write", {
    fields: [
      { selector: { label: "Email" }, text: "ann@example.test" },
      { selector: { label: "Password" }, secret: { name: "app", key: "wrong" } },
    ],
    submit: { role: "button", name: "Sign in" },
  });
  expect(wrong).toMatchObject({ url, title: "Example App" });
  expect((await p.tool("extract", { selector: { css: "#len" } })).result).toBe("0 characters");
  // The sign-in in one call: React's state takes both values (the app checks the password itself).
  const signed = await p.tool("write", {
    fields: [
      { selector: { label: "Email" }, text: "ann@example.test" },
      { selector: { label: "Password" }, secret: { name: "app", key: "password" } },
    ],
    submit: { role: "button", name: "Sign in" },
  });
  expect(signed).toMatchObject({ url, title: "Example App" });
  const read = await p.tool("read_page");
  expect(read.url).toBe(url);
  expect(read.text).toContain("Welcome, ann@example.test");
  expect(read.text).toContain("You are signed in to app.example.test since 2024.");
  // Scripts run on the page after a bound write (nothing of the value is left in it).
  expect((await p.tool("execute_script", { script: "location.hostname" })).result).toBe("app.example.test");
  expect(JSON.stringify(p.mcp.texts)).not.toContain(PASSWORD);
});
