// What the hint recorder (a preload script in the page's own world that notes which elements got
// click listeners, spec §1.6) costs read_page on a page of 1,000 divs each given a click listener
// (browser-use's listener test page, made bigger), beside two references read by a second server
// without the recorder, round by round in turn (two browsers, one each): the same page (the outline
// as it was: the 1,000 rows as text, nothing listed), and the page whose 1,000 divs have onclick
// attributes (the same targets, known without hints: what listing them costs, apart from detecting
// them). The first read right after the page loads, a read once the hints are in, the whole page,
// and the navigation itself. `bun bench/outline-hints.ts`; BENCH_ROUNDS sets the rounds.
import { serveOutlinePages } from "../test/support/outline-site.ts";
import { median, printTable, type Row, timed } from "./report.ts";
import { benchServer, restCaller } from "./server.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const W = "bench-outline-hints";

interface Side {
  navigate: number[];
  first: number[];
  again: number[];
  whole: number[];
  listedFirst: number[];
  listedWhole: number[];
}

const empty = (): Side => ({
  navigate: [],
  first: [],
  again: [],
  whole: [],
  listedFirst: [],
  listedWhole: [],
});

type Rest = ReturnType<typeof restCaller>;

/** One round on one side: load the page, read it at once, read again once the hints are in, read it whole. */
async function round(rest: Rest, url: string, into: Side): Promise<void> {
  into.navigate.push(await timed(() => rest(W, "POST", "/browser/navigate", { url })));
  let page: any;
  into.first.push(
    await timed(async () => {
      page = await rest(W, "POST", "/browser/read", {});
    }),
  );
  into.listedFirst.push(page.elements.length);
  await Bun.sleep(500);
  into.again.push(await timed(() => rest(W, "POST", "/browser/read", {})));
  into.whole.push(
    await timed(async () => {
      page = await rest(W, "POST", "/browser/read", { max_length: 500_000 });
    }),
  );
  into.listedWhole.push(page.elements.length);
}

export async function main(): Promise<void> {
  const site = serveOutlinePages();
  const url = (i: number, inline = false) =>
    site.url(`/many-listeners?n=1000${inline ? "&inline" : ""}&round=${i}`);
  const on = empty();
  const off = empty();
  const known = empty();
  const withHints = await benchServer(() => {}, { hints: true });
  const without = await benchServer(() => {}, { hints: false });
  const a = restCaller(withHints.base);
  const b = restCaller(without.base);
  try {
    // Each browser warmed on the page once, then the sides in turn, the order swapped each round.
    await round(a, url(-1), empty());
    await round(b, url(-1), empty());
    for (let i = 0; i < ROUNDS; i++) {
      const turns = [
        () => round(a, url(i), on),
        () => round(b, url(i), off),
        () => round(b, url(i, true), known),
      ];
      for (const t of i % 2 ? turns.reverse() : turns) await t();
    }
  } finally {
    await a(W, "DELETE", "/browser").catch(() => undefined);
    await b(W, "DELETE", "/browser").catch(() => undefined);
    await withHints.close();
    await without.close();
    site.stop();
  }
  const vs = (what: string, pick: (s: Side) => number[], target?: string): Row[] => [
    {
      what,
      value: median(pick(on)),
      unit: "ms",
      ref: median(pick(off)),
      refName: "the same page without the recorder",
      ...(target ? { target } : {}),
    },
    {
      what,
      value: median(pick(on)),
      unit: "ms",
      ref: median(pick(known)),
      refName: "1,000 onclick divs without it",
    },
  ];
  const rows: Row[] = [
    ...vs("read_page right after the page loaded (first part)", (x) => x.first, "≤ 1.2×"),
    ...vs("read_page once the hints are in (first part)", (x) => x.again, "≤ 1.2×"),
    ...vs("read_page of the whole page (max_length 500,000)", (x) => x.whole),
    ...vs("navigate to the page (the recorder runs as it loads)", (x) => x.navigate),
    {
      what: "elements the first read listed",
      value: median(on.listedFirst),
      unit: "elements",
      ref: median(known.listedFirst),
      refName: "1,000 onclick divs without it",
    },
    {
      what: "elements listed in the whole page",
      value: median(on.listedWhole),
      unit: "elements",
      ref: median(known.listedWhole),
      refName: "1,000 onclick divs without it",
    },
  ];
  printTable("the hint recorder on a page of 1,000 listeners", rows);
}

if (import.meta.main) {
  await main();
  process.exit(0);
}
