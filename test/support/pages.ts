// Fixture pages for the page actions (interact, write, extract, read_page, execute_script, assert)
// and their benchmark: forms, selects, checkboxes, radios, late elements, drag and drop, a sign-in
// with a password field, key presses, a hover menu, scroll targets, a frame, a shadow root.
import { html, type Routes } from "./fixtures.ts";

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

const FORM = `<title>Sign up</title>
<style>.fancy input{opacity:0;position:absolute} .fancy span{display:inline-block;padding:4px;border:1px solid #888}</style>
<header><a href="/">Home</a> <a href="/help">Help</a></header>
<main>
<h1>Create an account</h1>
<form id="signup" action="/done" method="get">
  <p><label for="email">Email</label> <input id="email" name="email" type="email" required></p>
  <p><label>Full name <input name="fullname"></label></p>
  <p><input aria-label="Nickname" name="nick"></p>
  <p><span id="phone-l">Phone</span> <input aria-labelledby="phone-l" name="phone" type="tel"></p>
  <p><input placeholder="Promo code" name="promo"></p>
  <p><label for="country">Country</label>
    <select id="country" name="country"><option value="">Choose…</option><option value="fr">France</option><option value="de">Germany</option><option value="jp">Japan</option></select></p>
  <fieldset><legend>Plan</legend>
    <label><input type="radio" name="plan" value="free" checked> Free</label>
    <label><input type="radio" name="plan" value="pro"> Pro</label></fieldset>
  <p><label><input type="checkbox" name="news" id="news"> Send me news</label></p>
  <p><label class="fancy"><input type="checkbox" name="terms" id="terms"><span>I accept the terms</span></label></p>
  <p><label for="bio">About you</label><textarea id="bio" name="bio"></textarea></p>
  <p><input name="locked" value="fixed" readonly aria-label="Locked"></p>
  <button type="submit" id="go">Create account</button>
</form>
</main>
<footer>© Example</footer>`;

const SIGNIN = (action: string, method: string) => `<title>Sign in</title>
<h1>Sign in</h1>
<form action="${action}" method="${method}">
  <label for="user">Username</label><input id="user" name="user">
  <label for="pw">Password</label><input id="pw" name="pw" type="password">
  <button type="submit">Sign in</button>
</form>`;

const LATE = `<title>Late</title>
<h1>Waiting</h1>
<div id="spinner">Loading…</div>
<div id="slot"></div>
<p id="hidden-note" style="display:none">Now you see me</p>
<p id="counter">0</p>
<script>
setTimeout(() => { document.getElementById('slot').innerHTML = '<button id="late-btn" onclick="this.textContent=\\'Clicked late\\'">Late button</button>'; }, 800);
setTimeout(() => { document.getElementById('hidden-note').style.display = 'block'; }, 600);
setTimeout(() => { document.getElementById('spinner').remove(); }, 1200);
let n = 0; const t = setInterval(() => { n++; document.getElementById('counter').textContent = String(n); if (n >= 5) clearInterval(t); }, 200);
</script>`;

const CLICKS = `<title>Clicks</title>
<style>#cover{position:fixed;left:0;top:200px;width:400px;height:100px;background:rgba(0,0,0,.3)} #under{position:absolute;top:230px;left:20px}</style>
<button id="one" onclick="log('click')" ondblclick="log('dblclick')" oncontextmenu="log('contextmenu'); return false">Press me</button>
<input id="focus-me" aria-label="Focus me" onfocus="log('focus')">
<ul id="log"></ul>
<button id="under" onclick="log('under')">Hidden under</button>
<div id="cover" class="overlay">cover</div>
<a href="/two" id="to-two">Go to two</a>
<script>function log(s){const li=document.createElement('li');li.textContent=s;document.getElementById('log').appendChild(li)}</script>`;

const MENU = `<title>Menu</title>
<style>.menu ul{display:none} .menu:hover ul{display:block}</style>
<nav aria-label="Main"><div class="menu" id="account">Account
  <ul><li><a href="/settings" id="settings-link">Settings</a></li><li><a href="/two">Sign out</a></li></ul></div></nav>
<p>Hover the menu.</p>`;

const SCROLL = `<title>Scroll</title>
<div style="height:3000px">Top of a long page</div>
<p id="far">Far down here</p>
<div style="height:1000px"></div>`;

const KEYS = `<title>Keys</title>
<input id="k" aria-label="Keys field" value="hello world">
<ol id="keys"></ol>
<script>
function show(where, e){ const li=document.createElement('li'); li.textContent=where+':'+(e.ctrlKey?'Control+':'')+(e.shiftKey&&e.key.length>1?'Shift+':'')+e.key; document.getElementById('keys').appendChild(li); }
document.getElementById('k').addEventListener('keydown', e => show('field', e));
document.addEventListener('keydown', e => { if (e.target === document.body) show('page', e); });
</script>`;

const DRAG = `<title>Drag</title>
<style>.box{width:120px;height:60px;margin:10px;border:1px solid #000} #handle{position:absolute;left:20px;top:300px;width:40px;height:40px;background:#c33}</style>
<div id="card" class="box" draggable="true">Card</div>
<div id="bin" class="box">Bin</div>
<p id="drop-log">nothing dropped</p>
<div id="handle"></div><p id="pointer-log">not moved</p>
<script>
const card = document.getElementById('card'), bin = document.getElementById('bin');
card.addEventListener('dragstart', e => e.dataTransfer.setData('text/plain', 'card'));
bin.addEventListener('dragover', e => e.preventDefault());
bin.addEventListener('drop', e => { e.preventDefault(); document.getElementById('drop-log').textContent = 'dropped ' + e.dataTransfer.getData('text/plain'); });
const h = document.getElementById('handle'); let down = null;
h.addEventListener('mousedown', e => { down = { x: e.clientX, y: e.clientY }; });
document.addEventListener('mouseup', e => { if (!down) return; const r = bin.getBoundingClientRect(); const inside = e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom; document.getElementById('pointer-log').textContent = inside ? 'handle in bin' : 'handle elsewhere'; down = null; });
</script>`;

const FRAMED = `<title>Framed</title><h1>Outer</h1><iframe id="inner" src="/inner" width="400" height="200"></iframe>`;
const INNER = `<title>Inner</title><label for="code">Code</label><input id="code" name="code"><button>Inner button</button>`;

const SHADOW = `<title>Shadow</title><h1>Components</h1><x-card id="card"></x-card>
<script>
customElements.define('x-card', class extends HTMLElement { constructor(){ super(); const r=this.attachShadow({mode:'open'}); r.innerHTML='<p>Inside the shadow</p><button id="shadow-btn">Shadow button</button>'; } });
</script>`;

const ROLES = `<title>Roles</title>
<div role="button" tabindex="0" onclick="this.textContent='Pressed'">Custom button</div>
<div role="checkbox" aria-checked="false" tabindex="0" id="aria-box" onclick="this.setAttribute('aria-checked', this.getAttribute('aria-checked')==='true'?'false':'true')">Remember me</div>
<table><caption>Prices</caption><tr><th>Item</th><th>Price</th></tr><tr><td>Tea</td><td class="price">3</td></tr><tr><td>Cake</td><td class="price">5</td></tr></table>
<a href="/two" title="Second page">two</a>`;

function article(): string {
  const paras = Array.from(
    { length: 40 },
    (_, i) =>
      `<p>Paragraph ${i + 1}: selenium-flow reads pages for agents. It keeps the text compact and lists what can be clicked, typed or chosen, each with a selector that works as is.</p>`,
  );
  const links = Array.from({ length: 30 }, (_, i) => `<li><a href="/doc/${i}">Chapter ${i + 1}</a></li>`);
  return `<title>Article</title><header><nav aria-label="Chapters"><ul>${links.join("")}</ul></nav></header><main><h1>A long article</h1><h2>Part one</h2>${paras.slice(0, 20).join("")}<h2>Part two</h2>${paras.slice(20).join("")}</main><footer>End</footer>`;
}

function big(): string {
  const rows = Array.from(
    { length: 600 },
    (_, i) =>
      `<tr><td>Row ${i}</td><td><input name="qty${i}" aria-label="Quantity ${i}" value="${i % 7}"></td><td><button class="add">Add ${i}</button></td><td><a href="/item/${i}">Item ${i}</a></td></tr>`,
  );
  return `<title>Big</title><h1>Inventory</h1><table>${rows.join("")}</table>`;
}

/** CONTROLS interactive elements, each named uniquely, in every layout the outline handles. */
export const CONTROLS = 2000;
function controls(): string {
  const out: string[] = [];
  for (let i = 0; i < CONTROLS; i++) {
    if (i % 200 === 0)
      out.push(`<h2>Section ${i / 200}</h2><p>Section ${i / 200} opens with a sentence of its own.</p>`);
    switch (i % 8) {
      case 0:
        out.push(
          `<p><label for="f${i}">Field ${i}</label> <input id="f${i}" name="f${i}" value="v${i}"></p>`,
        );
        break;
      case 1:
        out.push(`<div><button type="button" class="b">Button ${i}</button></div>`);
        break;
      case 2:
        out.push(
          `<p>Prose before <a href="/c/${i}">Link ${i}</a> and more prose after it, long enough to read as prose.</p>`,
        );
        break;
      case 3:
        out.push(`<p><select aria-label="Choice ${i}"><option>one</option><option>two</option></select></p>`);
        break;
      case 4:
        out.push(`<p><label><input type="checkbox" name="x${i}"> Box ${i}</label></p>`);
        break;
      case 5:
        out.push(`<ul><li><a href="/c/${i}">Item ${i}</a></li></ul>`);
        break;
      case 6:
        out.push(`<table><tr><td>Row ${i}</td><td><input aria-label="Cell ${i}"></td></tr></table>`);
        break;
      default:
        out.push(`<div role="button" tabindex="0">Custom ${i}</div>`);
    }
  }
  return `<title>Controls</title><header><nav aria-label="Top"><a href="/">Home</a></nav></header><main><h1>Controls</h1>${out.join("")}</main><footer>The end of the controls</footer>`;
}

const page = (body: string) => () => html(body);

async function echo(req: Request, title: string): Promise<Response> {
  const url = new URL(req.url);
  const params = req.method === "POST" ? new URLSearchParams(await req.text()) : url.searchParams;
  const user = params.get("user") ?? params.get("email") ?? "someone";
  const got = [...params.keys()].map(esc).join(", ");
  return html(`<title>${title}</title><h1>Welcome, ${esc(user)}</h1><p id="fields">fields: ${got}</p>`);
}

/** Every fixture page, for serveFixture. */
export const actionPages: Routes = {
  "/": page("<title>Home</title><h1>Home</h1>"),
  "/two": page("<title>Two</title><h1>Two</h1>"),
  "/form": page(FORM),
  "/done": (req) => echo(req, "Done"),
  "/signin": page(SIGNIN("/welcome", "post")),
  "/signin-get": page(SIGNIN("/welcome", "get")),
  "/welcome": (req) => echo(req, "Welcome"),
  "/late": page(LATE),
  "/clicks": page(CLICKS),
  "/menu": page(MENU),
  "/settings": page("<title>Settings</title><h1>Settings</h1>"),
  "/scroll": page(SCROLL),
  "/keys": page(KEYS),
  "/drag": page(DRAG),
  "/framed": page(FRAMED),
  "/inner": page(INNER),
  "/shadow": page(SHADOW),
  "/roles": page(ROLES),
  "/confirm": page(
    `<title>Confirm</title><button id="del" onclick="document.getElementById('answer').textContent = confirm('Delete it?') ? 'deleted' : 'kept'">Delete</button><p id="answer">-</p>`,
  ),
  "/article": page(article()),
  "/big": page(big()),
  "/controls": page(controls()),
};

/** The HTML each page serves, for comparing read_page's size with the page's own. */
export async function pageHtml(path: string): Promise<string> {
  const route = actionPages[path];
  if (!route) throw new Error(`no fixture page ${path}`);
  return (await route(new Request(`http://app.example.test${path}`))).text();
}
