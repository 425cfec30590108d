// Where each document's refs and cursors lead: the browsing context that holds the document, as
// read_page noted it (read-frames.ts), kept with the browser's held connection. A ref of a frame's
// document (its letter) then acts in that frame without a switch, and a cursor goes on in the
// document it came from. The letters and tokens are the server's own sandbox's; the contexts BiDi's.
import type { HeldConnection } from "../grid/held.ts";

const PLACES = Symbol("ref places");
/** Documents remembered per browser; the oldest are forgotten past it. */
const MAX_PLACES = 2_000;

const placesOf = (held: HeldConnection) => held.socket.attached(PLACES, () => new Map<string, string>());

/** Notes that `key` (`ref:<letter>` or `cur:<token>`) belongs to the document `context` holds. */
export function notePlace(held: HeldConnection, key: string, context: string): void {
  const places = placesOf(held);
  places.delete(key);
  places.set(key, context);
  if (places.size > MAX_PLACES)
    for (const old of [...places.keys()].slice(0, MAX_PLACES / 10)) places.delete(old);
}

/** The context `key` belongs to, when it is in `tab` (a ref never reaches into another tab). */
export function placeOf(held: HeldConnection, key: string, tab: string): string | undefined {
  const context = placesOf(held).get(key);
  return context && held.topOf(context) === tab ? context : undefined;
}

/** The context a ref's document is in (its letters, e in e12), when read_page noted it in `tab`. */
export function refPlace(held: HeldConnection, ref: string, tab: string): string | undefined {
  const letter = /^[a-z]+/.exec(ref)?.[0];
  return letter ? placeOf(held, `ref:${letter}`, tab) : undefined;
}
