// A fake Grid for unit tests of the workspace manager's ordering and failure paths: browsers with a
// main tab, a classic driver that answers the page reads this project makes, and a FakeBidi each.
import type { Grid, OpenOptions } from "../../src/grid/webdriver.ts";
import { READ_STORAGE } from "../../src/site-data/scripts.ts";
import { FakeBidi, type FakeOptions } from "./fake-bidi.ts";

export const goneError = () => Object.assign(new Error("invalid session id"), { name: "NoSuchSessionError" });

export interface FakeBrowser {
  id: string;
  options: OpenOptions;
  bidi: FakeBidi;
  alive: boolean;
  titles: Map<string, string>;
}

export class FakeGrid {
  readonly browsers = new Map<string, FakeBrowser>();
  /** Every call, in order: `open b1`, `get b1 <url>`, `bidi b1`, `end b1`. */
  readonly log: string[] = [];
  /** Runs before each classic executeScript (to change the world mid-call). */
  onScript: ((id: string, script: string) => Promise<void> | void) | null = null;
  openError: Error | null = null;
  private n = 0;

  constructor(private readonly bidiOptions: () => FakeOptions = () => ({})) {}

  get grid(): Grid {
    return this as unknown as Grid;
  }

  last(): FakeBrowser {
    return [...this.browsers.values()].at(-1) as FakeBrowser;
  }

  /** The Grid reaps it behind the server's back. */
  reap(id: string): void {
    const b = this.browsers.get(id);
    if (b) b.alive = false;
  }

  async open(options: OpenOptions) {
    if (this.openError) throw this.openError;
    const id = `b${++this.n}`;
    this.browsers.set(id, {
      id,
      options,
      bidi: new FakeBidi(this.bidiOptions()),
      alive: true,
      titles: new Map(),
    });
    this.log.push(`open ${id}`);
    return { id, driver: this.attach(id), capabilities: {} };
  }

  attach(id: string) {
    const browser = () => {
      const b = this.browsers.get(id);
      if (!b?.alive) throw goneError();
      return b;
    };
    const main = () => browser().bidi.tabs.get("main") as { url: string; marked: boolean };
    const origin = () => (main().url.startsWith("http") ? new URL(main().url).origin : "");
    return {
      get: async (url: string) => {
        browser();
        this.log.push(`get ${id} ${url}`);
        main().url = url;
        main().marked = false;
      },
      executeScript: async (script: string) => {
        browser();
        await this.onScript?.(id, script);
        browser();
        if (script === READ_STORAGE) {
          const o = origin();
          const b = browser();
          return {
            origin: o,
            local: o ? b.bidi.localOf(o).items() : {},
            session: o ? b.bidi.sessionOf("main", o).items() : {},
            url: main().url,
            title: b.titles.get(main().url) ?? "",
          };
        }
        if (script.includes("location.href")) return [main().url, browser().titles.get(main().url) ?? ""];
        throw new Error(`the fake driver cannot run: ${script.slice(0, 40)}`);
      },
      getCurrentUrl: async () => main().url,
      getTitle: async () => "",
      getWindowHandle: async () => {
        browser();
        return "main";
      },
    };
  }

  /** BiDi sockets opened and not closed yet (every call closes what it opened). */
  openSockets = 0;

  async bidi(id: string) {
    const b = this.browsers.get(id);
    if (!b?.alive) throw new Error("the browser's BiDi channel could not be opened: gone");
    this.log.push(`bidi ${id}`);
    this.openSockets++;
    let closed = false;
    const close = () => {
      if (!closed) this.openSockets--;
      closed = true;
    };
    // Each open is a socket of its own over the browser's one fake BiDi state.
    return new Proxy(b.bidi.socket, {
      get: (target, key) => (key === "close" ? close : Reflect.get(target, key)),
    });
  }

  async end(id: string): Promise<void> {
    this.log.push(`end ${id}`);
    const b = this.browsers.get(id);
    if (b) b.alive = false;
  }

  async alive(id: string): Promise<boolean> {
    return this.browsers.get(id)?.alive === true;
  }

  async sessions(): Promise<Set<string>> {
    return new Set([...this.browsers.values()].filter((b) => b.alive).map((b) => b.id));
  }
}
