// Gestures as BiDi input actions: pointer moves and presses on an element, key combos, typed text.
import type { KeyAction, PointerAction, SourceActions } from "./bidi-types.ts";
import type { NodeRef } from "./page-call.ts";

/** The pause before a key sequence's deadline, per key (typing is one BiDi command). */
export const KEY_MS = 20;

// BiDi key values are WebDriver's key codes; a newline is Enter and a tab is Tab, as sendKeys types them.
export function keysOf(text: string): string[] {
  const out: string[] = [];
  for (const ch of text.replace(/\r\n?/g, "\n"))
    out.push(ch === "\n" ? "\uE007" : ch === "\t" ? "\uE004" : ch);
  return out;
}

const mouse = (actions: PointerAction[]): SourceActions => ({
  type: "pointer",
  id: "mouse",
  parameters: { pointerType: "mouse" },
  actions,
});

const origin = (el: NodeRef) => ({ type: "element" as const, element: { sharedId: el.sharedId } });

/** Where a pointer goes: an element's middle (or a point `dx`, `dy` from it), or a point of the viewport. */
export type PointAt = (NodeRef & { dx?: number; dy?: number }) | { x: number; y: number };

const moveTo = (at: PointAt): PointerAction =>
  "sharedId" in at
    ? { type: "pointerMove", x: Math.round(at.dx ?? 0), y: Math.round(at.dy ?? 0), origin: origin(at) }
    : { type: "pointerMove", x: Math.round(at.x), y: Math.round(at.y), origin: "viewport" };

export function clickActions(at: PointAt, opts: { button?: number; count?: number }): SourceActions {
  const button = opts.button ?? 0;
  const actions: PointerAction[] = [moveTo(at)];
  for (let i = 0; i < (opts.count ?? 1); i++)
    actions.push({ type: "pointerDown", button }, { type: "pointerUp", button });
  return mouse(actions);
}

/**
 * A pointer source with `modifiers` (WebDriver key codes) held by a keyboard source whose ticks
 * run alongside it: keys down, the pointer acts while they are held, keys up. The page's mouse
 * events carry ctrlKey, shiftKey, altKey, metaKey.
 */
export function withModifiers(pointer: SourceActions, modifiers: string[]): SourceActions[] {
  if (!modifiers.length || pointer.type !== "pointer") return [pointer];
  const pad = (n: number) => Array.from({ length: n }, () => ({ type: "pause" as const }));
  const n = modifiers.length;
  const keys: KeyAction[] = [
    ...modifiers.map((value) => ({ type: "keyDown" as const, value })),
    ...pad(pointer.actions.length),
    ...[...modifiers].reverse().map((value) => ({ type: "keyUp" as const, value })),
  ];
  return [
    { type: "key", id: "keyboard", actions: keys },
    { ...pointer, actions: [...pad(n), ...pointer.actions, ...pad(n)] },
  ];
}

export function hoverActions(at: PointAt): SourceActions {
  return mouse([moveTo(at)]);
}

/**
 * A press at `from`, a walk in small steps to `to` (points of the viewport), a release there: what
 * a hand does, so a sortable list sees the pointer pass each item on the way and a text selection
 * grows as it goes.
 */
export function pathActions(from: { x: number; y: number }, to: { x: number; y: number }): SourceActions {
  const at = (x: number, y: number, duration = 0): PointerAction => ({
    type: "pointerMove",
    x: Math.max(0, Math.round(x)),
    y: Math.max(0, Math.round(y)),
    duration,
    origin: "viewport",
  });
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const steps = Math.max(4, Math.min(30, Math.round(Math.hypot(dx, dy) / 15)));
  const actions: PointerAction[] = [at(from.x, from.y), { type: "pointerDown", button: 0 }];
  // Past a library's drag threshold first (jQuery UI waits for 1 px and a moment).
  actions.push(at(from.x + Math.sign(dx || 1) * 3, from.y + Math.sign(dy || 1) * 3, 30));
  for (let i = 1; i <= steps; i++) actions.push(at(from.x + (dx * i) / steps, from.y + (dy * i) / steps, 15));
  actions.push({ type: "pause", duration: 60 }, at(to.x, to.y, 15), { type: "pointerUp", button: 0 });
  return mouse(actions);
}

/** Key presses: each combo's modifiers held around its key. */
export function keyActions(combos: { modifiers: string[]; key: string }[]): KeyAction[] {
  const actions: KeyAction[] = [];
  for (const c of combos) {
    for (const m of c.modifiers) actions.push({ type: "keyDown", value: m });
    actions.push({ type: "keyDown", value: c.key }, { type: "keyUp", value: c.key });
    for (const m of [...c.modifiers].reverse()) actions.push({ type: "keyUp", value: m });
  }
  return actions;
}
