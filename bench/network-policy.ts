// The navigation policy's cost: a page of 100 sub-requests loaded with the policy on (every request
// asked of the server over BiDi) beside the same page with none; and a 20-page PDF's text read in
// the server. Side by side in one run, no timed assertion.
import { PdfTexts } from "../src/files/pdf-text.ts";
import { html, serveFixture } from "../test/support/fixtures.ts";
import { pagesPdf } from "../test/support/pdf.ts";
import { median, printTable, type Row, timed } from "./report.ts";
import { benchServer, restCaller } from "./server.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const SUBREQUESTS = 100;

export async function main(): Promise<void> {
  let n = 0;
  // Every /px/<n>-<i>.gif: a tiny image, never cached.
  const px = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      new Response("GIF89a", { headers: { "content-type": "image/gif", "cache-control": "no-store" } }),
  });
  const page = serveFixture({
    "/hundred": () =>
      html(
        `<title>Hundred</title>${Array.from(
          { length: SUBREQUESTS },
          (_, i) => `<img src="http://img.example.test:${px.port}/px/${n}-${i}.gif">`,
        ).join("")}`,
        { "cache-control": "no-store" },
      ),
  });
  const on = await benchServer((c) => {
    c.navigate.blocked_hosts = ["*.blocked.example.test"];
    c.navigate.private_addresses = "block";
  });
  const off = await benchServer();
  const a = restCaller(on.base);
  const b = restCaller(off.base);
  const W = "bench-policy";
  try {
    const load = (call: typeof a) => () => {
      n++;
      return call(W, "POST", "/browser/navigate", { url: page.url("/hundred") });
    };
    await a(W, "POST", "/browser", { url: page.url("/hundred") });
    await b(W, "POST", "/browser", { url: page.url("/hundred") });
    for (let i = 0; i < 3; i++) {
      await load(a)();
      await load(b)();
    }
    const policy: number[] = [];
    const none: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      policy.push(await timed(load(a)));
      none.push(await timed(load(b)));
    }
    const logs = await a(W, "POST", "/browser/logs", { kind: "network", max: 500 });
    const refused = (logs.entries as { refused?: boolean }[]).filter((e) => e.refused).length;
    const texts = new PdfTexts({
      item: async () => ({ size: 1, modified: null }) as never,
      read: async () => ({ data: pagesPdf(20) }),
    });
    const pdf: number[] = [];
    for (let i = 0; i < 5; i++) {
      const fresh = new PdfTexts({
        item: async () => ({ size: i, modified: null }) as never,
        read: async () => ({ data: pagesPdf(20) }),
      });
      pdf.push(await timed(() => fresh.part("w", "downloads", "s.pdf", 1)));
    }
    await texts.part("w", "downloads", "s.pdf", 1);
    const next = await timed(() => texts.part("w", "downloads", "s.pdf", 2));
    const rows: Row[] = [
      {
        what: `navigate a page of ${SUBREQUESTS} sub-requests, policy on (${refused} refused)`,
        value: median(policy),
        unit: "ms",
        ref: median(none),
        refName: "no policy (nothing intercepted)",
        target: "≤ 1.15×",
      },
      {
        what: "a 20-page PDF's first part of text (read and parsed)",
        value: median(pdf),
        unit: "ms",
        ref: 1000,
        refName: "the target",
        target: "≤ 1 s",
      },
      { what: "its next part (kept)", value: next, unit: "ms", ref: median(pdf), refName: "the first part" },
    ];
    printTable("The navigation policy and PDF text (median of each)", rows);
  } finally {
    await a(W, "DELETE", "/browser").catch(() => undefined);
    await b(W, "DELETE", "/browser").catch(() => undefined);
    await on.close();
    await off.close();
    page.stop();
    px.stop(true);
  }
}

if (import.meta.main) {
  await main();
  process.exit(0);
}
