// The gestures as BiDi input actions (pointer moves and presses, key combos, the wheel): what the
// page's input verbs send (page-input.ts), computed here and nothing else.
import type { Input } from "webdriver-bidi-protocol";
import type { NodeRef } from "./page-call.ts";

// BiDi key values are WebDriver's key codes; a newline is Enter and a tab is Tab, as sendKeys types them.
export function keysOf(text: string): string[] {
  const out: string[] = [];
  for (const ch of text.replace(/\r\n?/g, "\n"))
    out.push(ch === "\n" ? "\uE007" : ch === "\t" ? "\uE004" : ch);
  return out;
}

const mouse = (actions: Input.PointerSourceAction[], id = "mouse"): Input.SourceActions => ({
  type: "pointer",
  id,
  parameters: { pointerType: "mouse" },
  actions,
});

const origin = (el: NodeRef) => ({ type: "element" as const, element: { sharedId: el.sharedId } });

/**
 * Where a pointer goes: an element's middle (or a point `dx`, `dy` from it), or a point of the
 * viewport. `watched`: the locating call already watches the element's next press (hitWatch).
 */
export type PointAt = (NodeRef & { dx?: number; dy?: number; watched?: boolean }) | { x: number; y: number };

const moveTo = (at: PointAt): Input.PointerSourceAction =>
  "sharedId" in at
    ? { type: "pointerMove", x: Math.round(at.dx ?? 0), y: Math.round(at.dy ?? 0), origin: origin(at) }
    : { type: "pointerMove", x: Math.round(at.x), y: Math.round(at.y), origin: "viewport" };

/** `count` presses at `at`, each held `holdMs` before its release (by the pointer `source`: the agent's mouse unless told). */
export function clickActions(
  at: PointAt,
  opts: { button?: number; count?: number; holdMs?: number; source?: string },
): Input.SourceActions {
  const button = opts.button ?? 0;
  const actions: Input.PointerSourceAction[] = [moveTo(at)];
  for (let i = 0; i < (opts.count ?? 1); i++) {
    actions.push({ type: "pointerDown", button });
    if (opts.holdMs) actions.push({ type: "pause", duration: Math.round(opts.holdMs) });
    actions.push({ type: "pointerUp", button });
  }
  return mouse(actions, opts.source);
}

/** What one action may cost the browser beyond its own duration (a move waits for the page: 18–45 ms seen). */
const ACTION_MS = 50;

/**
 * How long a source's actions may take, in ms: their own durations and ACTION_MS each (a command's
 * deadline adds it).
 */
export function actionsMs(sources: Input.SourceActions[]): number {
  let most = 0;
  for (const s of sources) {
    let ms = 0;
    for (const a of s.actions as { duration?: number }[]) ms += (a.duration ?? 0) + ACTION_MS;
    most = Math.max(most, ms);
  }
  return most;
}

/**
 * A pointer source with `modifiers` (WebDriver key codes) held by a keyboard source whose ticks
 * run alongside it: keys down, the pointer acts while they are held, keys up. The page's mouse
 * events carry ctrlKey, shiftKey, altKey, metaKey.
 */
export function withModifiers(pointer: Input.SourceActions, modifiers: string[]): Input.SourceActions[] {
  if (!modifiers.length || pointer.type !== "pointer") return [pointer];
  const pad = (n: number) => Array.from({ length: n }, () => ({ type: "pause" as const }));
  const n = modifiers.length;
  const keys: Input.KeySourceAction[] = [
    ...modifiers.map((value) => ({ type: "keyDown" as const, value })),
    ...pad(pointer.actions.length),
    ...[...modifiers].reverse().map((value) => ({ type: "keyUp" as const, value })),
  ];
  return [
    { type: "key", id: "keyboard", actions: keys },
    { ...pointer, actions: [...pad(n), ...pointer.actions, ...pad(n)] },
  ];
}

export function hoverActions(at: PointAt): Input.SourceActions {
  return mouse([moveTo(at)]);
}

/** A move to a point of the viewport, taking `duration` ms. */
const at = (x: number, y: number, duration = 0): Input.PointerSourceAction => ({
  type: "pointerMove",
  x: Math.max(0, Math.round(x)),
  y: Math.max(0, Math.round(y)),
  duration,
  origin: "viewport",
});

/**
 * A press at `from`, a walk in small steps to `to` (points of the viewport), a release there: what
 * a hand does, so a sortable list sees the pointer pass each item on the way and a text selection
 * grows as it goes.
 */
export function pathActions(
  from: { x: number; y: number },
  to: { x: number; y: number },
  holdMs = 0,
): Input.SourceActions {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const steps = Math.max(4, Math.min(30, Math.round(Math.hypot(dx, dy) / 15)));
  const actions: Input.PointerSourceAction[] = [at(from.x, from.y), { type: "pointerDown", button: 0 }];
  if (holdMs) actions.push({ type: "pause", duration: Math.round(holdMs) });
  // Past a library's drag threshold first (jQuery UI waits for 1 px and a moment).
  actions.push(at(from.x + Math.sign(dx || 1) * 3, from.y + Math.sign(dy || 1) * 3, 30));
  for (let i = 1; i <= steps; i++) actions.push(at(from.x + (dx * i) / steps, from.y + (dy * i) / steps, 15));
  actions.push({ type: "pause", duration: 60 }, at(to.x, to.y, 15), { type: "pointerUp", button: 0 });
  return mouse(actions);
}

/** Pixels between the moves a stroke makes on its way from point to point. */
const STROKE_STEP = 10;
/** The most moves one stroke makes: a longer one takes longer steps (each move costs ~20 ms). */
const STROKE_MOVES = 400;

/**
 * The pointer through `points` (of the viewport it moves in) in steps of at most STROKE_STEP pixels
 * (longer past STROKE_MOVES steps), so the page sees it pass continuously along each segment; `press`: pressed at the first point (held
 * `holdMs` there) and released at the last, as a drawn stroke or a drag is.
 */
export function strokeActions(
  points: { x: number; y: number }[],
  opts: { press: boolean; holdMs?: number },
): Input.SourceActions {
  const [first, ...rest] = points;
  if (!first) return mouse([]);
  const actions: Input.PointerSourceAction[] = [at(first.x, first.y)];
  if (opts.press) actions.push({ type: "pointerDown", button: 0 });
  if (opts.press && opts.holdMs) actions.push({ type: "pause", duration: Math.round(opts.holdMs) });
  let length = 0;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1] as { x: number; y: number };
    const b = points[i] as { x: number; y: number };
    length += Math.hypot(b.x - a.x, b.y - a.y);
  }
  const step = Math.max(STROKE_STEP, length / STROKE_MOVES);
  let from = first;
  for (const to of rest) {
    const dx = to.x - from.x;
    const dy = to.y - from.y;
    const steps = Math.max(1, Math.ceil(Math.hypot(dx, dy) / step));
    for (let i = 1; i <= steps; i++) actions.push(at(from.x + (dx * i) / steps, from.y + (dy * i) / steps));
    from = to;
  }
  if (opts.press) actions.push({ type: "pause", duration: 30 }, { type: "pointerUp", button: 0 });
  return mouse(actions);
}

/** The wheel turned by `delta` (CSS pixels) over `at`: an element's point, or one of the viewport. */
export function wheelActions(at: PointAt, delta: { x: number; y: number }): Input.SourceActions {
  const where =
    "sharedId" in at
      ? { x: Math.round(at.dx ?? 0), y: Math.round(at.dy ?? 0), origin: origin(at) }
      : { x: Math.round(at.x), y: Math.round(at.y), origin: "viewport" as const };
  return {
    type: "wheel",
    id: "wheel",
    actions: [{ type: "scroll", ...where, deltaX: Math.round(delta.x), deltaY: Math.round(delta.y) }],
  };
}

/** Key presses: each combo's modifiers held around its key. */
export function keyActions(combos: { modifiers: string[]; key: string }[]): Input.KeySourceAction[] {
  const actions: Input.KeySourceAction[] = [];
  for (const c of combos) {
    for (const m of c.modifiers) actions.push({ type: "keyDown", value: m });
    actions.push({ type: "keyDown", value: c.key }, { type: "keyUp", value: c.key });
    for (const m of [...c.modifiers].reverse()) actions.push({ type: "keyUp", value: m });
  }
  return actions;
}
