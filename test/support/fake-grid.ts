// A fake Grid for unit tests of the workspace manager's ordering and failure paths: browsers with a
// main tab and a FakeBidi each, whose connections the server holds.
import type { Grid } from "../../src/grid/webdriver.ts";
import type { OpenOptions } from "../../src/grid/webdriver-caps.ts";
import { FakeBidi, type FakeOptions } from "./fake-bidi.ts";

export const goneError = () => Object.assign(new Error("invalid session id"), { name: "NoSuchSessionError" });

export interface FakeBrowser {
  id: string;
  options: OpenOptions;
  bidi: FakeBidi;
  alive: boolean;
  /** Titles pages show, by url (the browser's FakeBidi answers with them). */
  titles: Map<string, string>;
}

export class FakeGrid {
  readonly browsers = new Map<string, FakeBrowser>();
  /** Every call, in order: `open b1`, `get b1 <url>` (the main tab navigated), `bidi b1`, `end b1`. */
  readonly log: string[] = [];
  /** Runs before each script the server runs in a page (to change the world mid-call). */
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
    const bidi = new FakeBidi(this.bidiOptions());
    this.browsers.set(id, { id, options, bidi, alive: true, titles: bidi.titles });
    this.log.push(`open ${id}`);
    return { id, driver: this.attach(id), capabilities: {} };
  }

  attach(id: string) {
    const browser = () => {
      const b = this.browsers.get(id);
      if (!b?.alive) throw goneError();
      return b;
    };
    return {
      getWindowHandle: async () => {
        browser();
        return "main";
      },
    };
  }

  /** BiDi sockets opened and not closed yet (the server holds one per live browser it touched). */
  openSockets = 0;

  async bidi(id: string) {
    const b = this.browsers.get(id);
    if (!b?.alive) throw new Error("the browser's BiDi channel could not be opened: gone");
    this.log.push(`bidi ${id}`);
    this.openSockets++;
    let closed = false;
    const closers: Array<() => void> = [];
    const close = () => {
      if (!closed) this.openSockets--;
      closed = true;
      for (const h of closers.splice(0)) h();
    };
    const send = async (method: string, params: any) => {
      if (closed) throw new Error("the browser's BiDi channel was closed");
      // A browser the Grid removed: its socket drops.
      if (!b.alive) {
        close();
        throw new Error("the browser's BiDi channel closed");
      }
      if (method === "script.callFunction") {
        // A library call names its function in its first argument (src/grid/page-call.ts).
        const named = String(params.functionDeclaration).includes("__sfLib")
          ? params.arguments?.[0]?.value
          : "";
        await this.onScript?.(id, `${params.functionDeclaration}${named ? ` ${named}` : ""}`);
        if (!b.alive) {
          close();
          throw new Error("the browser's BiDi channel closed");
        }
      }
      if (method === "browsingContext.navigate" && params.context === "main")
        this.log.push(`get ${id} ${params.url}`);
      return b.bidi.send(method, params);
    };
    // Each open is a socket of its own over the browser's one fake BiDi state.
    return new Proxy(b.bidi.socket, {
      get: (target, key) => {
        if (key === "close") return close;
        if (key === "closed") return closed;
        if (key === "send") return send;
        if (key === "onClose") return (h: () => void) => (closed ? h() : closers.push(h));
        return Reflect.get(target, key);
      },
    });
  }

  async end(id: string): Promise<"ended" | "gone"> {
    this.log.push(`end ${id}`);
    const b = this.browsers.get(id);
    const was = b?.alive === true;
    if (b) b.alive = false;
    return was ? "ended" : "gone";
  }

  /** Every live browser, tagged with the workspace it was opened for (one server group). */
  async tagged(): Promise<Array<{ id: string; workspace: string }>> {
    return [...this.browsers.values()]
      .filter((b) => b.alive && b.options.workspace !== undefined)
      .map((b) => ({ id: b.id, workspace: b.options.workspace as string }));
  }

  async alive(id: string): Promise<boolean> {
    return this.browsers.get(id)?.alive === true;
  }

  async sessions(): Promise<Set<string>> {
    return new Set([...this.browsers.values()].filter((b) => b.alive).map((b) => b.id));
  }
}
