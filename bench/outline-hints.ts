// What the hint recorder (a preload script in the page's own world that notes which elements got
// click listeners, spec §1.6) costs read_page on a page of 1,000 divs each given a click listener
// (browser-use's listener test page, made bigger), beside two references read by the same server
// without the recorder: the same page (the outline as it was: the 1,000 rows as text, no targets),
// and the page whose 1,000 divs have onclick attributes (the same targets, known without hints: the
// cost of listing them, apart from detecting them). The first read right after the page loads, a
// read once the hints are in, the whole page, and the navigation itself. One browser at a time; the
// sides take turns, twice over. `bun bench/outline-hints.ts`; BENCH_ROUNDS sets the rounds of each turn.
import { serveOutlinePages } from "../test/support/outline-site.ts";
import { median, printTable, type Row, timed } from "./report.ts";
import { benchServer, restCaller } from "./server.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
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

async function turn(hints: boolean, url: (i: number) => string, into: Side): Promise<void> {
  // Each side starts from a fresh browser.
  const { base, close } = await benchServer(() => {}, { hints });
  const rest = restCaller(base);
  try {
    await rest(W, "POST", "/browser/navigate", { url: url(-1) });
    await rest(W, "POST", "/browser/read", {});
    for (let i = 0; i < ROUNDS; i++) {
      into.navigate.push(await timed(() => rest(W, "POST", "/browser/navigate", { url: url(i) })));
      let page: any;
      into.first.push(
        await timed(async () => {
          page = await rest(W, "POST", "/browser/read", {});
        }),
      );
      into.listedFirst.push(page.elements.length);
      await Bun.sleep(600);
      into.again.push(await timed(() => rest(W, "POST", "/browser/read", {})));
      into.whole.push(
        await timed(async () => {
          page = await rest(W, "POST", "/browser/read", { max_length: 500_000 });
        }),
      );
      into.listedWhole.push(page.elements.length);
    }
  } finally {
    await rest(W, "DELETE", "/browser").catch(() => undefined);
    await close();
  }
}

export async function main(): Promise<void> {
  const site = serveOutlinePages();
  const url = (i: number) => site.url(`/many-listeners?n=1000&round=${i}`);
  const inline = (i: number) => site.url(`/many-listeners?n=1000&inline&round=${i}`);
  const on = empty();
  const off = empty();
  const known = empty();
  try {
    for (let pass = 0; pass < 2; pass++) {
      await turn(false, url, off);
      await turn(false, inline, known);
      await turn(true, url, on);
    }
  } finally {
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
