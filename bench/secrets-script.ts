import { html, serveFixture } from "../test/support/fixtures.ts";
import { median, printTable, type Row, timed } from "./report.ts";
import { benchServer, restCaller } from "./server.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);

// A news page as they come: a few frames, one of them a javascript: frame under a strict CSP.
const NEWS = `<title>News</title><h1>Example Domain news for 2024</h1>
<iframe src="about:blank"></iframe><iframe srcdoc="<p>inline</p>"></iframe>
<iframe src="javascript:void(0)"></iframe><p>Story.</p>`;

export async function main(): Promise<void> {
  const site = serveFixture({
    "/news": () => html(NEWS, { "content-security-policy": "script-src 'none'" }),
    "/login": () => html(`<title>Login</title><label>Password <input id=pw type=password></label>`),
  });
  const withSecrets = await benchServer((c) => {
    c.secrets.entries = {
      bank: { allowed_urls: ["bank.example.test"], keys: { pw: { value: "hunter2-Example!" } } },
    };
  });
  const without = await benchServer();
  const a = restCaller(withSecrets.base);
  const b = restCaller(without.base);
  const W = "bench-secrets-script";
  const script = { script: "document.querySelectorAll('p').length" };
  try {
    await a(W, "POST", "/browser/navigate", { url: site.url("/news") });
    await b(W, "POST", "/browser/navigate", { url: site.url("/news") });
    const run = (call: typeof a) => () => call(W, "POST", "/browser/script", script);
    for (let i = 0; i < 5; i++) {
      await run(a)();
      await run(b)();
    }
    const secrets: number[] = [];
    const none: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      secrets.push(await timed(run(a)));
      none.push(await timed(run(b)));
    }
    // Typed on the bank, then back to the news page (another site): the script is checked, not refused.
    await a(W, "POST", "/browser/navigate", { url: site.url("/login", "bank.example.test") });
    await a(W, "POST", "/browser/write", { selector: { css: "#pw" }, secret: { name: "bank", key: "pw" } });
    await a(W, "POST", "/browser/navigate", { url: site.url("/news") });
    const typed: number[] = [];
    const plain: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      typed.push(await timed(run(a)));
      plain.push(await timed(run(b)));
    }
    const rows: Row[] = [
      {
        what: "execute_script, secrets configured, nothing typed",
        value: median(secrets),
        unit: "ms",
        ref: median(none),
        refName: "no secrets configured",
        target: "≤ 1.05×",
      },
      {
        what: "execute_script on another site after a value was typed",
        value: median(typed),
        unit: "ms",
        ref: median(plain),
        refName: "no secrets configured",
      },
    ];
    printTable("execute_script and the secret checks (median of each)", rows);
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
