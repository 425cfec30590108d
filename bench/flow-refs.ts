// What a ref costs a call now that it keeps a locator (issue 43, item 8): `interact focus` on one
// element named by its ref (found, and its durable locator read in the same sandbox call), beside
// the same call naming it by the CSS selector read_page gives (no locator read), on a small form and
// on pages of 1,800 and 2,000 controls. No round trip is added; what a ref adds is the in-page search
// that proves the locator finds that element alone, which grows with the page's controls.
// `bun bench/flow-refs.ts`; BENCH_ROUNDS sets the rounds.
import { serveFixture } from "../test/support/fixtures.ts";
import { actionPages } from "../test/support/pages.ts";
import { median, printTable, type Row, timed } from "./report.ts";
import { benchServer, TOKEN } from "./server.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const W = "bench-flow-refs";

/** Each page, and the element acted on (its role and name as read_page lists it). */
const CASES: [string, string, string][] = [
  ["/form", "button", "Create account"],
  ["/big", "button", "Add 599"],
  ["/controls", "button", "Button 1993"],
];

export async function main(): Promise<void> {
  const site = serveFixture(actionPages);
  const { base, close } = await benchServer();
  const rest = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": W, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const out = (await res.json()) as any;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(out)}`);
    return out;
  };
  try {
    const rows: Row[] = [];
    for (const [path, role, name] of CASES) {
      await rest("/browser/navigate", { url: site.url(path) });
      const read = await rest("/browser/read", { max_length: 500_000 });
      const el = read.elements.find((e: any) => e.role === role && e.name === name);
      if (!el?.selector) throw new Error(`read_page gave no ${role} "${name}" with a selector on ${path}`);
      const byRef = () => rest("/browser/interact/focus", { selector: { ref: el.ref } });
      const bySelector = () => rest("/browser/interact/focus", { selector: el.selector });
      await byRef();
      await bySelector();
      const r: number[] = [];
      const s: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        s.push(await timed(bySelector));
        r.push(await timed(byRef));
      }
      rows.push({
        what: `interact focus by ref on ${path} (locator read)`,
        value: median(r),
        unit: "ms",
        ref: median(s),
        refName: `the same call by read_page's selector ${JSON.stringify(el.selector)}`,
        target: "≤ 1.5×",
      });
    }
    printTable("a ref's locator", rows);
  } finally {
    await fetch(`${base}/browser`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}`, "x-workspace": W },
    }).catch(() => undefined);
    await close();
    site.stop();
  }
}

if (import.meta.main) await main();
