// Fixture pages for the secret in the page only inside one call (spec §1.17): sign-ins of every kind
// (a form that posts, two steps, a single-page app signing in by fetch and failing with an error, a
// one-time code over six boxes), pages that mirror the value (a React-style value attribute, a
// preview, a hidden copy, the console), and the hostile pages of the fourth attack (an ad frame, a
// framing page that moves the focus, a home page whose script frames or opens the sign-in).
import { html, type Routes } from "./fixtures.ts";

const page = (body: string) => () => html(body);
const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

async function welcome(req: Request): Promise<Response> {
  const params = new URLSearchParams(await req.text());
  const ok = params.get("pw") === "correct-horse-77" || params.get("code") !== null;
  const fields = [...params.keys()].map(esc).join(", ");
  return html(
    ok
      ? `<title>Welcome</title><h1>Welcome, ${esc(params.get("user") ?? "someone")}</h1><p id="fields">fields: ${fields}</p>`
      : `<title>Sign in failed</title><h1>Wrong password</h1><a href="/signin">Try again</a>`,
  );
}

const SIGNIN = `<title>Sign in</title><h1>Sign in</h1>
<form action="/welcome" method="post">
  <label for="user">Username</label><input id="user" name="user">
  <label for="pw">Password</label><input id="pw" name="pw" type="password">
  <button type="submit" id="go">Sign in</button>
</form>
<script>addEventListener("pageshow", (e) => console.log("pageshow " + (e.persisted ? "restored" : "new") + " pw=" + document.getElementById("pw").value))</script>`;

// Two steps: the user name on one page, the password on the next (the name carried in a hidden field).
const STEP1 = `<title>Sign in</title><h1>Who are you?</h1>
<form action="/step2" method="post"><label for="user">Email</label><input id="user" name="user"><button>Next</button></form>`;
async function step2(req: Request): Promise<Response> {
  const user = new URLSearchParams(await req.text()).get("user") ?? "";
  return html(`<title>Password</title><h1>Hello ${esc(user)}</h1>
<form action="/welcome" method="post"><input type="hidden" name="user" value="${esc(user)}">
<label for="pw">Password</label><input id="pw" name="pw" type="password"><button>Sign in</button></form>`);
}

// A single-page app: the form never posts; fetch signs in; a wrong password leaves the form and says so.
const SPA = `<title>App</title><div id="root"><h1>Sign in</h1>
<form id="f"><label for="user">Email</label><input id="user" name="user">
<label for="pw">Password</label><input id="pw" name="pw" type="password">
<span id="len"></span><button id="go">Sign in</button></form><p id="error"></p></div>
<script>
const pw = document.getElementById("pw");
// A React-style mirror: the value attribute and a preview follow every input.
pw.addEventListener("input", () => { pw.setAttribute("value", pw.value); document.getElementById("len").textContent = pw.value ? pw.value.length + " characters" : ""; });
document.getElementById("f").addEventListener("submit", async (e) => {
  e.preventDefault();
  const body = JSON.stringify({ user: document.getElementById("user").value, pw: pw.value });
  const r = await fetch("/api/signin", { method: "POST", body });
  if (r.ok) document.getElementById("root").innerHTML = "<h1>Dashboard</h1><p>Signed in as " + (await r.json()).user + "</p>";
  else document.getElementById("error").textContent = "Wrong email or password";
});
</script>`;
async function apiSignin(req: Request): Promise<Response> {
  const { user, pw } = (await req.json()) as { user: string; pw: string };
  if (pw === "correct-horse-77") return Response.json({ user });
  return Response.json({ error: "no" }, { status: 401 });
}

// A one-time code over six one-character boxes: a paste or an input fills the rest, and the page
// sends itself once the six are full.
const OTP = `<title>Code</title><h1>Enter the code</h1>
<form id="f" action="/welcome" method="post"><input id="code" name="code" aria-label="Code" autocomplete="one-time-code">
<div id="boxes">${[0, 1, 2, 3, 4, 5].map((i) => `<input class="box" maxlength="1" aria-label="Digit ${i + 1}">`).join("")}</div>
<input type="hidden" id="copy" name="copy"></form>
<script>
const code = document.getElementById("code");
code.addEventListener("input", () => {
  const boxes = document.querySelectorAll(".box");
  [...code.value].forEach((c, i) => { if (boxes[i]) boxes[i].value = c; });
  document.getElementById("copy").value = code.value;
  if (code.value.length === 6 && location.search.includes("auto")) document.getElementById("f").requestSubmit();
});
</script>`;

// Pages that keep or show what goes in: a hidden copy, a growing textarea, a rich editor, a shadow root.
const MIRRORS = `<title>Mirrors</title><h1>Profile</h1>
<form id="f" onsubmit="event.preventDefault()">
<label for="key">API key</label><textarea id="key" rows="1" style="width:200px;field-sizing:content"></textarea>
<input type="hidden" id="keep" name="keep">
<div id="rich" contenteditable="true" aria-label="Note" style="min-height:20px;border:1px solid #999"></div>
<label for="next">Next</label><input id="next">
<input id="plain" aria-label="Plain">
<button id="save">Save</button></form>
<div id="host"></div>
<script>
document.getElementById("key").addEventListener("input", (e) => { document.getElementById("keep").value = e.target.value; console.log("typed " + e.target.value); });
const host = document.getElementById("host").attachShadow({ mode: "open" });
host.innerHTML = '<label>Shadow key <input id="sk" aria-label="Shadow key" style="width:300px"></label><p id="echo"></p>';
host.getElementById("sk").addEventListener("input", (e) => { host.getElementById("echo").textContent = ""; });
document.getElementById("plain").addEventListener("beforeinput", (e) => e.preventDefault());
</script>`;

// A page that alerts on a wrong password (its script waits on the alert).
const ALERTS = `<title>Alerts</title><form id="f"><label for="pw">Password</label><input id="pw" type="password"><button id="go">Go</button></form>
<script>document.getElementById("f").addEventListener("submit", (e) => { e.preventDefault(); setTimeout(() => alert("Wrong password"), 50); });</script>`;

// The bank's home page, with an ad frame; the hostile page that frames the bank's sign-in.
const HOME = `<title>Bank</title><h1>Bank home</h1><a href="/signin" id="to-signin">Sign in</a>`;
const AD = `<title>Ad</title><span id="ad">Buy now</span><textarea id="sink" aria-label="Sink"></textarea>`;
// An API token page with an ad frame from another host; its Save sends nothing.
const TOKEN_AD = (adUrl: string) => `<title>Token</title><h1>API access</h1>
<form onsubmit="event.preventDefault()"><label for="token">API token</label><input id="token" style="width:300px">
<button id="save">Save</button></form>
<iframe id="adframe" src="${adUrl}" style="width:300px;height:120px"></iframe>
<script>
// What the page itself sees of its field while a value goes in: painted or not.
window.seen = [];
document.getElementById("token").addEventListener("input", (e) => {
  const s = getComputedStyle(e.target);
  seen.push({ security: s.webkitTextSecurity, color: s.color, len: e.target.value.length });
});
</script>`;
const FRAMER = (bankUrl: string) => `<title>Framer</title><h1>Totally a bank</h1>
<textarea id="sink" aria-label="Sink"></textarea>
<iframe id="bank" src="${bankUrl}" style="width:600px;height:300px"></iframe>
<script>addEventListener("keydown", (e) => { if (e.key === "Control") document.getElementById("bank").focus(); }, true);</script>`;

/** The bank on app.example.test, its ad on ads.example.test, the framer on evil.example.test: all one server. */
export function secretPages(port: () => number): Routes {
  const at = (host: string, path: string) => `http://${host}.example.test:${port()}${path}`;
  return {
    "/": page(HOME),
    "/signin": page(SIGNIN),
    // Takes the submit and blocks for 1.5 s before it answers: slow, not stuck.
    "/slow":
      page(`<title>Slow sign-in</title><form id="f"><label for="pw">Password</label><input id="pw" type="password"><button>Sign in</button></form><p id="state">ready</p>
<script>document.getElementById("f").addEventListener("submit", (e) => { e.preventDefault(); setTimeout(() => { const t = Date.now(); while (Date.now() - t < 1500); document.getElementById("state").textContent = "sent"; }, 0); });</script>`),
    // Takes the submit, then runs a script that never yields for 40 s: nothing answers meanwhile.
    "/busy":
      page(`<title>Busy sign-in</title><form id="f"><label for="pw">Password</label><input id="pw" type="password"><button>Sign in</button></form>
<script>document.getElementById("f").addEventListener("submit", (e) => { e.preventDefault(); setTimeout(() => { const t = Date.now(); while (Date.now() - t < 40000); }, 0); });</script>`),
    "/welcome": welcome,
    "/step1": page(STEP1),
    "/step2": step2,
    "/spa": page(SPA),
    "/token": () => html(TOKEN_AD(at("ads", "/ad"))),
    "/api/signin": apiSignin,
    "/otp": page(OTP),
    "/mirrors": page(MIRRORS),
    "/alerts": page(ALERTS),
    // A sign-in pop-up: Allow tells the opener and closes the pop-up's own tab.
    // The app (another host) opens the bank's sign-in pop-up.
    "/opener": () =>
      html(
        `<title>App home</title><h1 id="state">Signed out</h1><button id="open" onclick="open('${at("app", "/popup")}', 'signin', 'width=400,height=300')">Sign in with Bank</button>
<script>addEventListener("message", (e) => { if (e.data === "allowed") document.getElementById("state").textContent = "Signed in"; });</script>`,
      ),
    "/popup": page(
      `<title>Bank sign-in</title><form onsubmit="event.preventDefault()"><label for="pw">Password</label><input id="pw" type="password">
<button id="allow" onclick="opener.postMessage('allowed', '*'); window.close()">Allow</button></form>`,
    ),
    "/ad": page(AD),
    "/framer": () => html(FRAMER(at("app", "/token-plain"))),
    "/token-post": page(
      `<title>Token</title><form action="/welcome" method="post"><label for="token">API token</label><input id="token" name="token" style="width:300px"><button id="save">Save</button></form>`,
    ),
    "/token-plain": page(
      `<title>Token</title><form onsubmit="event.preventDefault()"><label for="token">API token</label><input id="token" style="width:300px"><button id="save">Save</button></form>`,
    ),
  };
}
