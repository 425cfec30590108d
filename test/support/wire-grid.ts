// A Grid on the wire, with no browser behind it: a real HTTP + WebSocket server on 127.0.0.1 that
// speaks just enough classic WebDriver (new session, end, the liveness call) and WebDriver BiDi (the
// Grid's /session/<id>/se/bidi proxy) for the server's open → first page → end path. Each browser's
// BiDi commands are answered by a FakeBidi of its own, and the events it emits go out to the sockets
// that subscribed to them. It counts the BiDi sockets opened and open now, as tcp-proxy.ts does in
// front of the real Grid, so a leak test runs hundreds of cycles in seconds with real sockets.
//
// As the real Grid: ending a browser (or reaping it) does not close its BiDi sockets; their commands
// just never answer again (src/grid/page-port.ts), and a socket stays open until its client closes it.
import type { Server, ServerWebSocket } from "bun";
import { FakeBidi, type FakeOptions } from "./fake-bidi.ts";

export interface WireBrowser {
  id: string;
  bidi: FakeBidi;
  /** False once ended or reaped. */
  alive: boolean;
  /** The capabilities the server asked for (alwaysMatch). */
  asked: Record<string, unknown>;
}

export interface WireGrid {
  url: string;
  readonly browsers: Map<string, WireBrowser>;
  /** BiDi sockets opened so far, and open now. */
  readonly bidiOpened: number;
  readonly bidiOpen: number;
  /** Classic calls this fake does not speak, as `METHOD /path` (a test expects none). */
  readonly unknown: string[];
  /** BiDi commands the fake could not answer, as `method: why`. */
  readonly failed: string[];
  /** The Grid removes browser `id` behind the server's back: its sockets stay open and go silent. */
  reap(id: string): void;
  stop(): void;
}

interface Socket {
  browser: WireBrowser;
  /** Per subscription id, the listeners it put on the browser's FakeBidi. */
  subscriptions: Map<string, Array<() => void>>;
}

const SESSION = /^\/session\/([^/]+)(\/.*)?$/;
const BIDI = /^\/session\/([^/]+)\/se\/bidi$/;
const WINDOW = "main";
// The BiDi error codes FakeBidi throws by message (anything else is an "unknown error").
const CODES = /^(no such frame|no such script|no such node|invalid argument|unknown command)/;

const json = (status: number, value: unknown) => Response.json({ value }, { status });
const wdError = (status: number, error: string, message: string) =>
  json(status, { error, message, stacktrace: "" });
const gone = (id: string) => wdError(404, "invalid session id", `Unable to find session with ID: ${id}`);

export interface WireGridOptions {
  /** Each new browser's FakeBidi options. */
  bidi?: () => FakeOptions;
  /** Titles the pages show, by url (every browser). */
  titles?: Record<string, string>;
}

export function startWireGrid(opts: WireGridOptions = {}): WireGrid {
  const browsers = new Map<string, WireBrowser>();
  const counts = { opened: 0, open: 0 };
  const unknown: string[] = [];
  const failed: string[] = [];

  const newSession = async (req: Request, port: number): Promise<Response> => {
    const body = (await req.json().catch(() => null)) as {
      capabilities?: { alwaysMatch?: Record<string, unknown> };
    } | null;
    const asked = body?.capabilities?.alwaysMatch;
    if (!asked) return wdError(400, "invalid argument", "no capabilities.alwaysMatch");
    // The real Grid's ids are 32 hex digits.
    const id = crypto.randomUUID().replaceAll("-", "");
    const bidi = new FakeBidi(opts.bidi?.());
    for (const [url, title] of Object.entries(opts.titles ?? {})) bidi.titles.set(url, title);
    browsers.set(id, { id, bidi, alive: true, asked });
    const timeouts = { implicit: 0, pageLoad: 300_000, script: 30_000, ...(asked.timeouts as object) };
    return json(200, {
      sessionId: id,
      capabilities: {
        browserName: asked.browserName ?? "chrome",
        acceptInsecureCerts: asked.acceptInsecureCerts === true,
        unhandledPromptBehavior: asked.unhandledPromptBehavior ?? "dismiss and notify",
        timeouts,
        webSocketUrl: `ws://127.0.0.1:${port}/session/${id}/se/bidi`,
        "se:downloadsEnabled": asked["se:downloadsEnabled"] === true,
      },
    });
  };

  const classic = async (req: Request, path: string, port: number): Promise<Response> => {
    const method = req.method;
    if (method === "GET" && path === "/status") {
      const slots = [...browsers.values()]
        .filter((b) => b.alive)
        .map((b) => ({ stereotype: { browserName: "chrome" }, session: { sessionId: b.id } }));
      slots.push({ stereotype: { browserName: "chrome" }, session: null as never });
      return json(200, { ready: true, message: "Selenium Grid ready.", nodes: [{ slots }] });
    }
    if (method === "POST" && path === "/session") return newSession(req, port);
    const m = SESSION.exec(path);
    const b = m ? browsers.get(decodeURIComponent(m[1] as string)) : undefined;
    if (m && !b?.alive) return gone(decodeURIComponent(m[1] as string));
    const rest = m?.[2] ?? "";
    if (b && method === "DELETE" && rest === "") {
      b.alive = false;
      return json(200, null);
    }
    if (b && method === "GET" && rest === "/window") return json(200, WINDOW);
    if (b && method === "GET" && rest === "/timeouts") return json(200, b.asked.timeouts ?? {});
    unknown.push(`${method} ${path}`);
    return wdError(404, "unknown command", `${method} ${path} is not spoken by the wire Grid`);
  };

  const answer = async (ws: ServerWebSocket<Socket>, text: string): Promise<void> => {
    let msg: { id?: unknown; method?: unknown; params?: unknown };
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    const { id, method } = msg;
    if (typeof id !== "number" || typeof method !== "string") return;
    const { browser } = ws.data;
    // A removed browser's commands never answer (the real Grid leaves the socket open, silent).
    if (!browser.alive) return;
    const params = (msg.params ?? {}) as Record<string, unknown>;
    let reply: Record<string, unknown>;
    try {
      const result = await browser.bidi.send(method, params);
      if (method === "session.subscribe") follow(ws, result.subscription, params.events as string[]);
      if (method === "session.unsubscribe") for (const s of params.subscriptions as string[]) unfollow(ws, s);
      reply = { type: "success", id, result };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const code = CODES.exec(message)?.[1] ?? "unknown error";
      if (code === "unknown error") failed.push(`${method}: ${message}`);
      reply = { type: "error", id, error: code, message };
    }
    if (browser.alive && ws.readyState === 1) ws.send(JSON.stringify(reply));
  };

  // The events the browser's FakeBidi emits go out on the socket that subscribed to them.
  const follow = (ws: ServerWebSocket<Socket>, subscription: string, events: string[]) => {
    const offs = events.map((event) =>
      ws.data.browser.bidi.on(event, null, (params: unknown) => {
        if (ws.data.browser.alive && ws.readyState === 1)
          ws.send(JSON.stringify({ type: "event", method: event, params }));
      }),
    );
    ws.data.subscriptions.set(subscription, offs);
  };
  const unfollow = (ws: ServerWebSocket<Socket>, subscription: string) => {
    for (const off of ws.data.subscriptions.get(subscription) ?? []) off();
    ws.data.subscriptions.delete(subscription);
  };

  const server: Server<Socket> = Bun.serve<Socket>({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req, srv) {
      const path = new URL(req.url).pathname;
      const bidi = BIDI.exec(path);
      if (bidi) {
        const browser = browsers.get(decodeURIComponent(bidi[1] as string));
        if (!browser?.alive) return new Response("no such session", { status: 404 });
        if (srv.upgrade(req, { data: { browser, subscriptions: new Map() } })) return undefined;
        return new Response("expected a WebSocket upgrade", { status: 400 });
      }
      return classic(req, path, srv.port as number);
    },
    websocket: {
      open() {
        counts.opened++;
        counts.open++;
      },
      message(ws, data) {
        void answer(ws, typeof data === "string" ? data : Buffer.from(data).toString("utf8"));
      },
      close(ws) {
        counts.open--;
        for (const s of [...ws.data.subscriptions.keys()]) unfollow(ws, s);
      },
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    browsers,
    get bidiOpened() {
      return counts.opened;
    },
    get bidiOpen() {
      return counts.open;
    },
    unknown,
    failed,
    reap(id) {
      const b = browsers.get(id);
      if (b) b.alive = false;
    },
    stop: () => server.stop(true),
  };
}
