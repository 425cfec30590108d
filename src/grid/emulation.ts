// What a workspace's browser pretends to be: its locale, time zone, user agent, location, media
// features (prefers-color-scheme …) and whether it is offline, through BiDi's emulation module, for
// every tab of the browser (new ones too). Applied once per change (the browser keeps them across
// connections); a browser that lacks a command is refused by name, never silently left as it was.
import { badInput } from "../errors.ts";
import { BidiError, type BidiSocket } from "./bidi.ts";

/** A workspace's emulation, as the record keeps it (open_session's `emulate`, and `offline`). */
export interface Emulation {
  locale?: string;
  timezone?: string;
  user_agent?: string;
  geolocation?: { latitude: number; longitude: number; accuracy?: number };
  media?: Record<string, string>;
  offline?: boolean;
}

type Field = keyof Emulation;

/** Each field's command, with what it sends for a value (null: the browser's own again). */
const COMMANDS: { [F in Field]-?: (v: Emulation[F] | undefined, userContexts: string[]) => Sent } = {
  locale: (v, userContexts) => ["emulation.setLocaleOverride", { locale: v ?? null, userContexts }],
  timezone: (v, userContexts) => ["emulation.setTimezoneOverride", { timezone: v ?? null, userContexts }],
  user_agent: (v, userContexts) => ["emulation.setUserAgentOverride", { userAgent: v ?? null, userContexts }],
  geolocation: (v, userContexts) => [
    "emulation.setGeolocationOverride",
    { coordinates: v ?? null, userContexts },
  ],
  media: (v, userContexts) => [
    "emulation.setMediaFeaturesOverride",
    { features: v && Object.keys(v).length ? v : null, userContexts },
  ],
  offline: (v, userContexts) => [
    "emulation.setNetworkConditions",
    { networkConditions: v ? { type: "offline" } : null, userContexts },
  ],
};
type Sent = [Parameters<BidiSocket["send"]>[0], Record<string, unknown>];

/** A fingerprint: the same key, the same emulation. */
export const emulationKey = (e: Emulation | null) => JSON.stringify(e ?? {});

/**
 * Sets in the browser each field of `want` that differs from `had` (what it was given before; null:
 * nothing), or puts the browser's own back for a field dropped. A location set also grants the
 * pages now open leave to read it (a browser opened with one grants every site: webdriver-caps.ts).
 */
export async function applyEmulation(
  socket: BidiSocket,
  want: Emulation,
  had: Emulation | null,
): Promise<void> {
  const changed = (Object.keys(COMMANDS) as Field[]).filter(
    (f) => JSON.stringify(want[f] ?? null) !== JSON.stringify(had?.[f] ?? null),
  );
  if (!changed.length) return;
  const { userContexts } = await socket.send("browser.getUserContexts", {});
  const ids = userContexts.map((u) => u.userContext);
  for (const field of changed) {
    const [method, params] = (COMMANDS[field] as (v: unknown, u: string[]) => Sent)(want[field], ids);
    try {
      await (socket.send as (m: string, p: unknown) => Promise<unknown>)(method, params);
    } catch (err) {
      throw refusal(field, method, err);
    }
  }
  if (want.geolocation && changed.includes("geolocation")) await grantLocation(socket);
}

/** The pages open now may read the location (their origins are granted it). */
async function grantLocation(socket: BidiSocket): Promise<void> {
  const { contexts } = await socket.send("browsingContext.getTree", { maxDepth: 0 });
  for (const c of contexts) {
    let origin: string;
    try {
      origin = new URL(c.url).origin;
    } catch {
      continue;
    }
    if (origin === "null") continue;
    await socket
      .send("permissions.setPermission", {
        descriptor: { name: "geolocation" },
        state: "granted",
        origin,
        ...(c.userContext ? { userContext: c.userContext } : {}),
      })
      .catch(() => undefined);
  }
}

/** A command the browser refused, said as a 400 naming the field: unsupported, or the value it took badly. */
function refusal(field: Field, method: string, err: unknown): unknown {
  if (!(err instanceof BidiError)) return err;
  const name = field === "offline" ? "offline" : `emulate.${field}`;
  if (err.error === "unknown command" || err.error === "unsupported operation") {
    return badInput(
      `${name}: this browser cannot emulate that (it does not implement BiDi's ${method}); open the workspace's browser without it, or as chrome`,
      name,
    );
  }
  if (err.error === "invalid argument")
    return badInput(`${name}: the browser refused the value: ${err.bidiMessage}`, name);
  return err;
}
