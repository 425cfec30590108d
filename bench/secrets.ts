// A sign-in in one call (spec §1.17): a write with a secret (fill, submit, empty before the answer)
// beside the same write with the password as plain text, on a form that posts. Medians, side by side
// from the same run, each browser on its own server.
import { html, serveFixture } from "../test/support/fixtures.ts";
import { median, printTable, type Row, timed } from "./report.ts";
import { benchServer, restCaller } from "./server.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const PASSWORD = "correct-horse-77";

const SIGNIN = `<title>Sign in</title><form action="/welcome" method="post">
<label for="user">Email</label><input id="user" name="user">
<label for="pw">Password</label><input id="pw" name="pw" type="password"><button>Sign in</button></form>`;

export async function main(): Promise<void> {
  const site = serveFixture({
    "/signin": () => html(SIGNIN),
    "/welcome": () => html("<title>Welcome</title><h1>Welcome</h1>"),
  });
  const withSecrets = await benchServer((c) => {
    c.secrets.entries = {
      bank: { allowed_urls: ["app.example.test"], keys: { pw: { value: PASSWORD } } },
    };
  });
  const without = await benchServer();
  const a = restCaller(withSecrets.base);
  const b = restCaller(without.base);
  const W = "bench-secrets";
  const user = { selector: { label: "Email" }, text: "ada@example.test" };
  const bound = {
    fields: [user, { selector: { label: "Password" }, secret: { name: "bank", key: "pw" } }],
    submit: true,
  };
  const plain = { fields: [user, { selector: { label: "Password" }, text: PASSWORD }], submit: true };
  try {
    const signIn = (call: typeof a, body: unknown) => async () => {
      await call(W, "POST", "/browser/navigate", { url: site.url("/signin") });
      return timed(() => call(W, "POST", "/browser/write", body));
    };
    for (let i = 0; i < 3; i++) {
      await signIn(a, bound)();
      await signIn(b, plain)();
    }
    const boundMs: number[] = [];
    const plainMs: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      boundMs.push(await signIn(a, bound)());
      plainMs.push(await signIn(b, plain)());
    }
    const rows: Row[] = [
      {
        what: "write with a secret and submit (fill, send, emptied), 2 fields",
        value: median(boundMs),
        unit: "ms",
        ref: median(plainMs),
        refName: "the same write with the password as text",
        target: "≤ 1.2×",
      },
    ];
    printTable("a sign-in in one call (median of each)", rows);
  } finally {
    await a(W, "DELETE", "/browser").catch(() => undefined);
    await b(W, "DELETE", "/browser").catch(() => undefined);
    await withSecrets.close();
    await without.close();
    site.stop();
  }
}

if (import.meta.main) {
  await main();
  process.exit(0);
}
